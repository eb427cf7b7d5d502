package io.ortex.ep.cpu.linalg;

/**
 * Float32 element-wise loops over contiguous ranges, on the Vector API when it is in use and in plain Java
 * otherwise: binary arithmetic (both operands ranges, or one a scalar), unary functions, and the row reductions of
 * Softmax. The kernels of the element-wise ops call these for their contiguous runs. Stateless.
 */
public final class Elementwise {
    /** Binary functions. */
    public enum Binary {
        /** a + b. */
        ADD,
        /** a - b. */
        SUB,
        /** a * b. */
        MUL,
        /** a / b. */
        DIV,
        /** max(a, b), NaN if either is NaN. */
        MAX,
        /** min(a, b), NaN if either is NaN. */
        MIN
    }

    /** Unary functions. */
    public enum Unary {
        /** |x|. */
        ABS,
        /** -x. */
        NEG,
        /** sqrt(x). */
        SQRT,
        /** 1 / x. */
        RECIPROCAL,
        /** e^x. */
        EXP,
        /** ln(x). */
        LOG,
        /** erf(x). */
        ERF,
        /** max(x, 0). */
        RELU,
        /** 1 / (1 + e^-x). */
        SIGMOID,
        /** tanh(x). */
        TANH
    }

    private Elementwise() {
    }

    /**
     * {@code out[o + i] = op(a[ao + i], b[bo + i])} for {@code i < n}.
     *
     * @param op the function
     * @param a the first operand
     * @param ao its first index
     * @param b the second operand
     * @param bo its first index
     * @param out the result (may be either operand)
     * @param o its first index
     * @param n how many
     */
    public static void binary(Binary op, float[] a, int ao, float[] b, int bo, float[] out, int o, int n) {
        if (VectorSupport.enabled()) {
            VectorMath.binary(op, a, ao, b, bo, out, o, n);
        } else {
            for (int i = 0; i < n; i++) {
                out[o + i] = apply(op, a[ao + i], b[bo + i]);
            }
        }
    }

    /**
     * The greater of each pair of neighbours, {@code out[o + j] = max(x[xo + 2j], x[xo + 2j + 1])}, NaN if either is:
     * a max pooling window two wide with stride 2 along a row.
     *
     * @param x the values
     * @param xo the first index
     * @param out the maxima
     * @param o their first index
     * @param n how many pairs
     */
    public static void maxOfPairs(float[] x, int xo, float[] out, int o, int n) {
        int done = VectorSupport.enabled() ? VectorMath.maxOfPairs(x, xo, out, o, n) : 0;
        for (int j = done; j < n; j++) {
            out[o + j] = Math.max(x[xo + 2 * j], x[xo + 2 * j + 1]);
        }
    }

    /**
     * {@code out[o + i] = op(a[ao + i], v)}, or {@code op(v, a[ao + i])} when {@code scalarFirst}.
     *
     * @param op the function
     * @param a the range operand
     * @param ao its first index
     * @param v the scalar operand
     * @param scalarFirst whether the scalar is the first operand
     * @param out the result
     * @param o its first index
     * @param n how many
     */
    public static void binaryScalar(Binary op, float[] a, int ao, float v, boolean scalarFirst, float[] out, int o,
                                    int n) {
        if (VectorSupport.enabled()) {
            VectorMath.binaryScalar(op, a, ao, v, scalarFirst, out, o, n);
        } else if (scalarFirst) {
            for (int i = 0; i < n; i++) {
                out[o + i] = apply(op, v, a[ao + i]);
            }
        } else {
            for (int i = 0; i < n; i++) {
                out[o + i] = apply(op, a[ao + i], v);
            }
        }
    }

    /**
     * {@code out[o + i] = x[xo + i] * scale + shift}: a per-channel affine map (a folded BatchNormalization, or the
     * Mul and Add exporters write after a convolution) over one run of a channel's values.
     *
     * @param x the operand
     * @param xo its first index
     * @param scale the factor
     * @param shift the term added after scaling
     * @param out the result (may be the operand)
     * @param o its first index
     * @param n how many
     */
    public static void affine(float[] x, int xo, float scale, float shift, float[] out, int o, int n) {
        if (VectorSupport.enabled()) {
            VectorMath.affine(x, xo, scale, shift, out, o, n);
        } else {
            for (int i = 0; i < n; i++) {
                out[o + i] = x[xo + i] * scale + shift;
            }
        }
    }

    /**
     * The sum of a run of values, accumulated in many float partial sums (one per vector lane) added up in double:
     * within float rounding of the exact sum for the lengths of a feature map.
     *
     * @param x the values
     * @param off the first index
     * @param n how many
     * @return the sum
     */
    public static double sum(float[] x, int off, int n) {
        if (VectorSupport.enabled()) {
            return VectorMath.sum(x, off, n);
        }
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += x[off + i];
        }
        return s;
    }

    /**
     * {@code out[o + i] = op(x[xo + i])}.
     *
     * @param op the function
     * @param x the operand
     * @param xo its first index
     * @param out the result (may be the operand)
     * @param o its first index
     * @param n how many
     */
    public static void unary(Unary op, float[] x, int xo, float[] out, int o, int n) {
        if (VectorSupport.enabled()) {
            VectorMath.unary(op, x, xo, out, o, n);
        } else {
            for (int i = 0; i < n; i++) {
                out[o + i] = apply(op, x[xo + i]);
            }
        }
    }

    /**
     * {@code y[yo + i] += a * x[xo + i]} for {@code i < n}.
     *
     * @param a the factor
     * @param x the added values
     * @param xo their first index
     * @param y the accumulated values
     * @param yo their first index
     * @param n how many
     */
    public static void axpy(float a, float[] x, int xo, float[] y, int yo, int n) {
        if (VectorSupport.enabled()) {
            VectorMath.axpy(a, x, xo, y, yo, n);
        } else {
            for (int i = 0; i < n; i++) {
                y[yo + i] += a * x[xo + i];
            }
        }
    }

    /**
     * The softmax of one row: {@code out[o + i] = e^(x_i - max) / sum_j e^(x_j - max)}.
     *
     * @param x the row's values
     * @param xo its first index
     * @param out the result (may be the input)
     * @param o its first index
     * @param n the row length, at least 1
     */
    public static void softmax(float[] x, int xo, float[] out, int o, int n) {
        if (VectorSupport.enabled()) {
            VectorMath.softmax(x, xo, out, o, n);
            return;
        }
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, x[xo + i]);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            float e = (float) Math.exp(x[xo + i] - max);
            out[o + i] = e;
            sum += e;
        }
        float inv = (float) (1 / sum);
        for (int i = 0; i < n; i++) {
            out[o + i] *= inv;
        }
    }

    /**
     * Layer normalization of one row: {@code out = (x - mean) / sqrt(var + eps) * gamma + beta}, the variance being
     * the mean of the squared deviations (two passes, as ONNX's LayerNormalization).
     *
     * @param x the row's values
     * @param xo its first index
     * @param n the row length, at least 1
     * @param gamma the scale per column, or {@code null} for 1
     * @param beta the shift per column, or {@code null} for 0
     * @param eps added to the variance
     * @param out the result (may be the input)
     * @param o its first index
     */
    public static void layerNorm(float[] x, int xo, int n, float[] gamma, float[] beta, float eps, float[] out,
                                 int o) {
        if (VectorSupport.enabled()) {
            VectorMath.layerNorm(x, xo, n, gamma, beta, eps, out, o);
            return;
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += x[xo + i];
        }
        float mean = (float) (sum / n);
        double sq = 0;
        for (int i = 0; i < n; i++) {
            float d = x[xo + i] - mean;
            sq += d * d;
        }
        float inv = (float) (1 / Math.sqrt(sq / n + eps));
        for (int i = 0; i < n; i++) {
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

    /**
     * Applies a binary function to two values in plain Java.
     *
     * @param op the function
     * @param a the first value
     * @param b the second value
     * @return the result
     */
    public static float apply(Binary op, float a, float b) {
        switch (op) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV: return a / b;
            case MAX: return Math.max(a, b);
            default: return Math.min(a, b);
        }
    }

    /**
     * Applies a unary function to one value in plain Java.
     *
     * @param op the function
     * @param x the value
     * @return the result
     */
    public static float apply(Unary op, float x) {
        switch (op) {
            case ABS: return Math.abs(x);
            case NEG: return -x;
            case SQRT: return (float) Math.sqrt(x);
            case RECIPROCAL: return 1f / x;
            case EXP: return (float) Math.exp(x);
            case LOG: return (float) Math.log(x);
            case ERF: return (float) ScalarMath.erf(x);
            case RELU: return x < 0f ? 0f : x;
            case SIGMOID: return (float) (1 / (1 + Math.exp(-x)));
            default: return (float) Math.tanh(x);
        }
    }
}
