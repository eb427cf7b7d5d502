package io.ortex.ep.cpu.linalg;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Element-wise float32 functions on the Vector API, each with a plain-Java tail for the last elements. Loaded only
 * when {@link VectorSupport#enabled()}. Stateless.
 */
final class VectorMath {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final float INV_SQRT2 = (float) (1 / Math.sqrt(2));

    private VectorMath() {
    }

    /**
     * Applies an activation in place.
     *
     * @param act the activation
     * @param a the values
     * @param off the first index
     * @param len how many
     */
    static void activate(Activation act, float[] a, int off, int len) {
        // each function is a loop of its own, and no method here takes or returns a vector: a switch of vector loops
        // grows too large for the JIT to inline every vector operation once many kinds have run, and a vector that
        // crosses a call that is not inlined is boxed
        int done = switch (act.kind()) {
            case RELU -> relu(a, off, a, off, len);
            case CLIP -> clip(a, off, len, act.alpha(), act.beta());
            case LEAKY_RELU -> leakyRelu(a, off, len, act.alpha());
            case SIGMOID -> sigmoid(a, off, a, off, len);
            case HARD_SIGMOID -> hardSigmoid(a, off, len, act.alpha(), act.beta());
            case HARD_SWISH -> hardSwish(a, off, len);
            case TANH -> tanh(a, off, a, off, len);
            case GELU -> erf(a, off, a, off, len, true);
            default -> len;
        };
        for (int i = off + done; i < off + len; i++) {
            a[i] = act.applyScalar(a[i]);
        }
    }

    private static int relu(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        FloatVector zero = FloatVector.zero(S);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).max(zero).intoArray(out, o + i);
        }
        return bound;
    }

    private static int clip(float[] a, int off, int n, float min, float max) {
        int bound = S.loopBound(n);
        for (int i = off; i < off + bound; i += S.length()) {
            FloatVector.fromArray(S, a, i).max(min).min(max).intoArray(a, i);
        }
        return bound;
    }

    private static int leakyRelu(float[] a, int off, int n, float alpha) {
        int bound = S.loopBound(n);
        for (int i = off; i < off + bound; i += S.length()) {
            FloatVector v = FloatVector.fromArray(S, a, i);
            v.blend(v.mul(alpha), v.lt(0f)).intoArray(a, i);
        }
        return bound;
    }

    private static int hardSigmoid(float[] a, int off, int n, float alpha, float beta) {
        int bound = S.loopBound(n);
        for (int i = off; i < off + bound; i += S.length()) {
            FloatVector.fromArray(S, a, i).mul(alpha).add(beta).max(0f).min(1f).intoArray(a, i);
        }
        return bound;
    }

    private static int hardSwish(float[] a, int off, int n) {
        int bound = S.loopBound(n);
        for (int i = off; i < off + bound; i += S.length()) {
            FloatVector v = FloatVector.fromArray(S, a, i);
            v.mul(v.mul(1f / 6f).add(0.5f).max(0f).min(1f)).intoArray(a, i);
        }
        return bound;
    }

    /** {@code 1 / (1 + exp(-x))} over the whole vectors of a range; returns how many values it did. */
    private static int sigmoid(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        FloatVector one = FloatVector.broadcast(S, 1f);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector e = FloatVector.fromArray(S, x, xo + i).neg().lanewise(VectorOperators.EXP);
            one.div(e.add(one)).intoArray(out, o + i);
        }
        return bound;
    }

    /**
     * {@code erf(x)}, or with {@code gelu} {@code x/2 (1 + erf(x / sqrt 2))}, over the whole vectors of a range,
     * within 2e-7 absolute (Abramowitz and Stegun 7.1.26, odd symmetry); returns how many values it did.
     */
    private static int erf(float[] x, int xo, float[] out, int o, int n, boolean gelu) {
        int bound = S.loopBound(n);
        FloatVector one = FloatVector.broadcast(S, 1f);
        float scale = gelu ? INV_SQRT2 : 1f;
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector v = FloatVector.fromArray(S, x, xo + i);
            FloatVector z = v.mul(scale);
            FloatVector az = z.abs();
            FloatVector t = one.div(az.mul(0.3275911f).add(1f));
            FloatVector p = t.mul(1.061405429f).add(-1.453152027f);
            p = p.mul(t).add(1.421413741f);
            p = p.mul(t).add(-0.284496736f);
            p = p.mul(t).add(0.254829592f);
            p = p.mul(t);
            FloatVector e = az.mul(az).neg().lanewise(VectorOperators.EXP);
            FloatVector y = one.sub(p.mul(e));
            y = y.blend(y.neg(), z.lt(0f));
            (gelu ? v.mul(0.5f).mul(y.add(1f)) : y).intoArray(out, o + i);
        }
        return bound;
    }

    static void binary(Elementwise.Binary op, float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int done = switch (op) {
            case ADD -> add(a, ao, b, bo, out, o, n);
            case SUB -> sub(a, ao, b, bo, out, o, n);
            case MUL -> mul(a, ao, b, bo, out, o, n);
            case DIV -> div(a, ao, b, bo, out, o, n);
            case MAX -> max(a, ao, b, bo, out, o, n);
            default -> min(a, ao, b, bo, out, o, n);
        };
        for (int i = done; i < n; i++) {
            out[o + i] = Elementwise.apply(op, a[ao + i], b[bo + i]);
        }
    }

    private static int add(float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, a, ao + i).add(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    private static int sub(float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, a, ao + i).sub(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    private static int mul(float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, a, ao + i).mul(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    private static int div(float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, a, ao + i).div(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    private static int max(float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, a, ao + i).max(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    private static int min(float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, a, ao + i).min(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    static double sum(float[] x, int off, int n) {
        int l = S.length();
        FloatVector a0 = FloatVector.zero(S);
        FloatVector a1 = FloatVector.zero(S);
        FloatVector a2 = FloatVector.zero(S);
        FloatVector a3 = FloatVector.zero(S);
        int i = 0;
        for (; i + 4 * l <= n; i += 4 * l) {
            a0 = a0.add(FloatVector.fromArray(S, x, off + i));
            a1 = a1.add(FloatVector.fromArray(S, x, off + i + l));
            a2 = a2.add(FloatVector.fromArray(S, x, off + i + 2 * l));
            a3 = a3.add(FloatVector.fromArray(S, x, off + i + 3 * l));
        }
        FloatVector t = a0.add(a1).add(a2.add(a3));
        double s = 0;
        for (int j = 0; j < l; j++) {
            s += t.lane(j);
        }
        for (; i < n; i++) {
            s += x[off + i];
        }
        return s;
    }

    /** Even lanes first: lane {@code i} takes lane {@code 2i} (modulo the length) of its source. */
    private static final VectorShuffle<Float> EVEN_LANES = VectorShuffle.fromOp(S, i -> 2 * i % S.length());
    /** The upper half of the lanes. */
    private static final VectorMask<Float> UPPER_HALF = VectorMask.fromLong(S,
            ((1L << S.length()) - 1) & -(1L << (S.length() / 2)));

    /**
     * {@link Elementwise#maxOfPairs} a vector of outputs at a time, while the loads (which read one value past the
     * last pair of each vector) stay inside {@code x}.
     *
     * @return how many pairs were done
     */
    static int maxOfPairs(float[] x, int xo, float[] out, int o, int n) {
        int l = S.length();
        int j = 0;
        for (int c = xo; j + l <= n && c + 2 * l + 1 <= x.length; j += l, c += 2 * l) {
            // lane 2i of each maximum is pair i: gather the even lanes of both into one vector
            FloatVector lo = FloatVector.fromArray(S, x, c).max(FloatVector.fromArray(S, x, c + 1));
            FloatVector hi = FloatVector.fromArray(S, x, c + l).max(FloatVector.fromArray(S, x, c + l + 1));
            lo.rearrange(EVEN_LANES).blend(hi.rearrange(EVEN_LANES), UPPER_HALF).intoArray(out, o + j);
        }
        return j;
    }

    static void affine(float[] x, int xo, float scale, float shift, float[] out, int o, int n) {
        int i = 0;
        int bound = S.loopBound(n);
        FloatVector s = FloatVector.broadcast(S, scale);
        FloatVector t = FloatVector.broadcast(S, shift);
        for (; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).mul(s).add(t).intoArray(out, o + i);
        }
        for (; i < n; i++) {
            out[o + i] = x[xo + i] * scale + shift;
        }
    }

    static void binaryScalar(Elementwise.Binary op, float[] a, int ao, float v, boolean scalarFirst, float[] out,
                             int o, int n) {
        int done = switch (op) {
            case ADD -> addScalar(a, ao, v, out, o, n);
            case MUL -> mulScalar(a, ao, v, out, o, n);
            case SUB -> scalarFirst ? scalarSub(v, a, ao, out, o, n) : addScalar(a, ao, -v, out, o, n);
            case DIV -> scalarFirst ? scalarDiv(v, a, ao, out, o, n) : divScalar(a, ao, v, out, o, n);
            case MAX -> maxScalar(a, ao, v, out, o, n);
            default -> minScalar(a, ao, v, out, o, n);
        };
        for (int i = done; i < n; i++) {
            out[o + i] = scalarFirst ? Elementwise.apply(op, v, a[ao + i]) : Elementwise.apply(op, a[ao + i], v);
        }
    }

    private static int addScalar(float[] x, int xo, float v, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).add(v).intoArray(out, o + i);
        }
        return bound;
    }

    private static int mulScalar(float[] x, int xo, float v, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).mul(v).intoArray(out, o + i);
        }
        return bound;
    }

    private static int divScalar(float[] x, int xo, float v, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).div(v).intoArray(out, o + i);
        }
        return bound;
    }

    private static int maxScalar(float[] x, int xo, float v, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).max(v).intoArray(out, o + i);
        }
        return bound;
    }

    private static int minScalar(float[] x, int xo, float v, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).min(v).intoArray(out, o + i);
        }
        return bound;
    }

    private static int scalarSub(float v, float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        FloatVector s = FloatVector.broadcast(S, v);
        for (int i = 0; i < bound; i += S.length()) {
            s.sub(FloatVector.fromArray(S, x, xo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    private static int scalarDiv(float v, float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        FloatVector s = FloatVector.broadcast(S, v);
        for (int i = 0; i < bound; i += S.length()) {
            s.div(FloatVector.fromArray(S, x, xo + i)).intoArray(out, o + i);
        }
        return bound;
    }

    static void unary(Elementwise.Unary op, float[] x, int xo, float[] out, int o, int n) {
        int done = switch (op) {
            case ABS -> abs(x, xo, out, o, n);
            case NEG -> neg(x, xo, out, o, n);
            case SQRT -> sqrt(x, xo, out, o, n);
            case RECIPROCAL -> scalarDiv(1f, x, xo, out, o, n);
            case EXP -> exp(x, xo, out, o, n);
            case LOG -> log(x, xo, out, o, n);
            case ERF -> erf(x, xo, out, o, n, false);
            case RELU -> relu(x, xo, out, o, n);
            case SIGMOID -> sigmoid(x, xo, out, o, n);
            default -> tanh(x, xo, out, o, n);
        };
        for (int i = done; i < n; i++) {
            out[o + i] = Elementwise.apply(op, x[xo + i]);
        }
    }

    private static int abs(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).abs().intoArray(out, o + i);
        }
        return bound;
    }

    private static int neg(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).neg().intoArray(out, o + i);
        }
        return bound;
    }

    private static int sqrt(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).sqrt().intoArray(out, o + i);
        }
        return bound;
    }

    private static int exp(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).lanewise(VectorOperators.EXP).intoArray(out, o + i);
        }
        return bound;
    }

    private static int log(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).lanewise(VectorOperators.LOG).intoArray(out, o + i);
        }
        return bound;
    }

    private static int tanh(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        for (int i = 0; i < bound; i += S.length()) {
            FloatVector.fromArray(S, x, xo + i).lanewise(VectorOperators.TANH).intoArray(out, o + i);
        }
        return bound;
    }

    static void softmax(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        int len = S.length();
        // the largest element, by compare and blend rather than max (whose NaN and -0.0 rules cost a longer
        // sequence), in two independent chains; a NaN is passed over here and makes the row NaN in the exp pass
        FloatVector max0 = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        FloatVector max1 = max0;
        int i = 0;
        for (; i + 2 * len <= bound; i += 2 * len) {
            FloatVector a = FloatVector.fromArray(S, x, xo + i);
            FloatVector b = FloatVector.fromArray(S, x, xo + i + len);
            max0 = max0.blend(a, max0.compare(VectorOperators.LT, a));
            max1 = max1.blend(b, max1.compare(VectorOperators.LT, b));
        }
        for (; i < bound; i += len) {
            FloatVector a = FloatVector.fromArray(S, x, xo + i);
            max0 = max0.blend(a, max0.compare(VectorOperators.LT, a));
        }
        float max = max0.blend(max1, max0.compare(VectorOperators.LT, max1)).reduceLanes(VectorOperators.MAX);
        for (; i < n; i++) {
            max = Math.max(max, x[xo + i]);
        }
        FloatVector vsum = FloatVector.zero(S);
        i = 0;
        for (; i < bound; i += S.length()) {
            FloatVector e = FloatVector.fromArray(S, x, xo + i).sub(max).lanewise(VectorOperators.EXP);
            e.intoArray(out, o + i);
            vsum = vsum.add(e);
        }
        float sum = vsum.reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            float e = (float) Math.exp(x[xo + i] - max);
            out[o + i] = e;
            sum += e;
        }
        float inv = 1f / sum;
        i = 0;
        for (; i < bound; i += S.length()) {
            FloatVector.fromArray(S, out, o + i).mul(inv).intoArray(out, o + i);
        }
        for (; i < n; i++) {
            out[o + i] *= inv;
        }
    }

    static void layerNorm(float[] x, int xo, int n, float[] gamma, float[] beta, float eps, float[] out, int o) {
        int bound = S.loopBound(n);
        FloatVector vs = FloatVector.zero(S);
        int i = 0;
        for (; i < bound; i += S.length()) {
            vs = vs.add(FloatVector.fromArray(S, x, xo + i));
        }
        float sum = vs.reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            sum += x[xo + i];
        }
        float mean = sum / n;
        FloatVector vq = FloatVector.zero(S);
        i = 0;
        for (; i < bound; i += S.length()) {
            FloatVector d = FloatVector.fromArray(S, x, xo + i).sub(mean);
            vq = d.fma(d, vq);
        }
        float sq = vq.reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            float d = x[xo + i] - mean;
            sq += d * d;
        }
        float inv = (float) (1 / Math.sqrt(sq / n + eps));
        i = 0;
        for (; i < bound; i += S.length()) {
            FloatVector v = FloatVector.fromArray(S, x, xo + i).sub(mean).mul(inv);
            if (gamma != null) {
                v = v.mul(FloatVector.fromArray(S, gamma, i));
            }
            if (beta != null) {
                v = v.add(FloatVector.fromArray(S, beta, i));
            }
            v.intoArray(out, o + i);
        }
        for (; i < n; i++) {
            float v = (x[xo + i] - mean) * inv;
            if (gamma != null) {
                v *= gamma[i];
            }
            if (beta != null) {
                v += beta[i];
            }
            out[o + i] = v;
        }
    }

    static void axpy(float a, float[] x, int xo, float[] y, int yo, int n) {
        int i = 0;
        int bound = S.loopBound(n);
        FloatVector va = FloatVector.broadcast(S, a);
        for (; i < bound; i += S.length()) {
            va.fma(FloatVector.fromArray(S, x, xo + i), FloatVector.fromArray(S, y, yo + i)).intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] += a * x[xo + i];
        }
    }
}
