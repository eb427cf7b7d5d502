package io.ortex.ep.cpu.linalg;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Quantize} on the Vector API; loaded only when {@link VectorSupport#enabled()}. Rounding half to even uses
 * the float32 adder itself: for {@code |v| <= 2^22}, {@code (v + 1.5 * 2^23) - 1.5 * 2^23} is {@code v} rounded to
 * an integer in the default rounding mode, which is to nearest, ties to even. Quotients are first clamped to
 * {@code [-512, 512]}, which changes no level (any quotient beyond saturates either way) and keeps them in that
 * range. Stateless.
 */
final class VectorQuantize {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final float ROUNDER = 12582912f;
    private static final float BOUND = 512f;

    private VectorQuantize() {
    }

    static float[] range(float[] x, int off, int n) {
        int l = S.length();
        FloatVector lo0 = FloatVector.zero(S);
        FloatVector lo1 = FloatVector.zero(S);
        FloatVector hi0 = FloatVector.zero(S);
        FloatVector hi1 = FloatVector.zero(S);
        int i = 0;
        for (; i + 2 * l <= n; i += 2 * l) {
            FloatVector a = FloatVector.fromArray(S, x, off + i);
            FloatVector b = FloatVector.fromArray(S, x, off + i + l);
            lo0 = lo0.min(a);
            hi0 = hi0.max(a);
            lo1 = lo1.min(b);
            hi1 = hi1.max(b);
        }
        // MIN and MAX follow Math.min and Math.max lane by lane, so a NaN anywhere reaches the result
        float min = lo0.min(lo1).reduceLanes(VectorOperators.MIN);
        float max = hi0.max(hi1).reduceLanes(VectorOperators.MAX);
        for (; i < n; i++) {
            min = Math.min(min, x[off + i]);
            max = Math.max(max, x[off + i]);
        }
        return new float[] {min, max};
    }

    static int levels(float[] x, int xo, int n, float scale, float zeroPoint, float shift, float[] out, int o) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector q = FloatVector.fromArray(S, x, xo + i).div(scale).max(-BOUND).min(BOUND)
                    .add(ROUNDER).sub(ROUNDER).add(zeroPoint).max(0f).min(Quantize.QMAX);
            q.blend(0f, q.test(VectorOperators.IS_NAN)).sub(shift).intoArray(out, o + i);
        }
        return bound;
    }
}
