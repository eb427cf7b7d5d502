package io.ortex.ep.cpu.linalg;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
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
        int end = off + len;
        int i = off;
        int bound = off + S.loopBound(len);
        switch (act.kind()) {
            case RELU -> {
                FloatVector zero = FloatVector.zero(S);
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, i).max(zero).intoArray(a, i);
                }
            }
            case CLIP -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, i).max(act.alpha()).min(act.beta()).intoArray(a, i);
                }
            }
            case LEAKY_RELU -> {
                for (; i < bound; i += S.length()) {
                    FloatVector v = FloatVector.fromArray(S, a, i);
                    v.blend(v.mul(act.alpha()), v.lt(0f)).intoArray(a, i);
                }
            }
            case SIGMOID -> {
                for (; i < bound; i += S.length()) {
                    sigmoid(FloatVector.fromArray(S, a, i)).intoArray(a, i);
                }
            }
            case HARD_SIGMOID -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, i).mul(act.alpha()).add(act.beta()).max(0f).min(1f).intoArray(a, i);
                }
            }
            case HARD_SWISH -> {
                for (; i < bound; i += S.length()) {
                    FloatVector v = FloatVector.fromArray(S, a, i);
                    v.mul(v.mul(1f / 6f).add(0.5f).max(0f).min(1f)).intoArray(a, i);
                }
            }
            case TANH -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, i).lanewise(VectorOperators.TANH).intoArray(a, i);
                }
            }
            case GELU -> {
                for (; i < bound; i += S.length()) {
                    FloatVector v = FloatVector.fromArray(S, a, i);
                    v.mul(0.5f).mul(erf(v.mul(INV_SQRT2)).add(1f)).intoArray(a, i);
                }
            }
            default -> {
                return;
            }
        }
        for (; i < end; i++) {
            a[i] = act.applyScalar(a[i]);
        }
    }

    /**
     * {@code erf(x)} for each lane, within 2e-7 absolute (Abramowitz and Stegun 7.1.26, odd symmetry).
     *
     * @param x the arguments
     * @return the results
     */
    static FloatVector erf(FloatVector x) {
        FloatVector ax = x.abs();
        FloatVector t = ax.mul(0.3275911f).add(1f);
        t = FloatVector.broadcast(S, 1f).div(t);
        FloatVector p = t.mul(1.061405429f).add(-1.453152027f);
        p = p.mul(t).add(1.421413741f);
        p = p.mul(t).add(-0.284496736f);
        p = p.mul(t).add(0.254829592f);
        p = p.mul(t);
        FloatVector e = ax.mul(ax).neg().lanewise(VectorOperators.EXP);
        FloatVector y = FloatVector.broadcast(S, 1f).sub(p.mul(e));
        return y.blend(y.neg(), x.lt(0f));
    }

    /**
     * {@code 1 / (1 + exp(-x))} for each lane.
     *
     * @param x the arguments
     * @return the results
     */
    static FloatVector sigmoid(FloatVector x) {
        FloatVector e = x.neg().lanewise(VectorOperators.EXP);
        return FloatVector.broadcast(S, 1f).div(e.add(1f));
    }

    static void binary(Elementwise.Binary op, float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        int i = 0;
        int bound = S.loopBound(n);
        switch (op) {
            case ADD -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).add(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
                }
            }
            case SUB -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).sub(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
                }
            }
            case MUL -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).mul(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
                }
            }
            case DIV -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).div(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
                }
            }
            case MAX -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).max(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
                }
            }
            default -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).min(FloatVector.fromArray(S, b, bo + i)).intoArray(out, o + i);
                }
            }
        }
        for (; i < n; i++) {
            out[o + i] = Elementwise.apply(op, a[ao + i], b[bo + i]);
        }
    }

    static void binaryScalar(Elementwise.Binary op, float[] a, int ao, float v, boolean scalarFirst, float[] out,
                             int o, int n) {
        int i = 0;
        int bound = S.loopBound(n);
        FloatVector s = FloatVector.broadcast(S, v);
        switch (op) {
            case ADD -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).add(s).intoArray(out, o + i);
                }
            }
            case MUL -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).mul(s).intoArray(out, o + i);
                }
            }
            case SUB -> {
                for (; i < bound; i += S.length()) {
                    FloatVector x = FloatVector.fromArray(S, a, ao + i);
                    (scalarFirst ? s.sub(x) : x.sub(s)).intoArray(out, o + i);
                }
            }
            case DIV -> {
                for (; i < bound; i += S.length()) {
                    FloatVector x = FloatVector.fromArray(S, a, ao + i);
                    (scalarFirst ? s.div(x) : x.div(s)).intoArray(out, o + i);
                }
            }
            case MAX -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).max(s).intoArray(out, o + i);
                }
            }
            default -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, a, ao + i).min(s).intoArray(out, o + i);
                }
            }
        }
        for (; i < n; i++) {
            out[o + i] = scalarFirst ? Elementwise.apply(op, v, a[ao + i]) : Elementwise.apply(op, a[ao + i], v);
        }
    }

    static void unary(Elementwise.Unary op, float[] x, int xo, float[] out, int o, int n) {
        int i = 0;
        int bound = S.loopBound(n);
        switch (op) {
            case ABS -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, x, xo + i).abs().intoArray(out, o + i);
                }
            }
            case NEG -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, x, xo + i).neg().intoArray(out, o + i);
                }
            }
            case SQRT -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, x, xo + i).sqrt().intoArray(out, o + i);
                }
            }
            case RECIPROCAL -> {
                FloatVector one = FloatVector.broadcast(S, 1f);
                for (; i < bound; i += S.length()) {
                    one.div(FloatVector.fromArray(S, x, xo + i)).intoArray(out, o + i);
                }
            }
            case EXP -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, x, xo + i).lanewise(VectorOperators.EXP).intoArray(out, o + i);
                }
            }
            case LOG -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, x, xo + i).lanewise(VectorOperators.LOG).intoArray(out, o + i);
                }
            }
            case ERF -> {
                for (; i < bound; i += S.length()) {
                    erf(FloatVector.fromArray(S, x, xo + i)).intoArray(out, o + i);
                }
            }
            case RELU -> {
                FloatVector zero = FloatVector.zero(S);
                for (; i < bound; i += S.length()) {
                    FloatVector v = FloatVector.fromArray(S, x, xo + i);
                    v.blend(zero, v.lt(0f)).intoArray(out, o + i);
                }
            }
            case SIGMOID -> {
                for (; i < bound; i += S.length()) {
                    sigmoid(FloatVector.fromArray(S, x, xo + i)).intoArray(out, o + i);
                }
            }
            default -> {
                for (; i < bound; i += S.length()) {
                    FloatVector.fromArray(S, x, xo + i).lanewise(VectorOperators.TANH).intoArray(out, o + i);
                }
            }
        }
        for (; i < n; i++) {
            out[o + i] = Elementwise.apply(op, x[xo + i]);
        }
    }

    static void softmax(float[] x, int xo, float[] out, int o, int n) {
        int bound = S.loopBound(n);
        FloatVector vmax = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        int i = 0;
        for (; i < bound; i += S.length()) {
            vmax = vmax.max(FloatVector.fromArray(S, x, xo + i));
        }
        float max = vmax.reduceLanes(VectorOperators.MAX);
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
