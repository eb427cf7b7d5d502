package io.ortex.ep.cpu.linalg;

/**
 * An element-wise function applied to a kernel's result while it is still in cache: the epilogue of a fused
 * Conv or MatMul (Conv+Relu, MatMul+Add+Gelu, ...). Immutable.
 *
 * @param kind the function
 * @param alpha its first parameter (Clip's min, LeakyRelu's and HardSigmoid's alpha)
 * @param beta its second parameter (Clip's max, HardSigmoid's beta)
 */
public record Activation(Kind kind, float alpha, float beta) {
    /** No function: the result as computed. */
    public static final Activation NONE = new Activation(Kind.NONE, 0, 0);
    /** {@code max(x, 0)}. */
    public static final Activation RELU = new Activation(Kind.RELU, 0, 0);
    /** {@code 1 / (1 + exp(-x))}. */
    public static final Activation SIGMOID = new Activation(Kind.SIGMOID, 0, 0);
    /** {@code tanh(x)}. */
    public static final Activation TANH = new Activation(Kind.TANH, 0, 0);
    /** {@code x * min(max(x / 6 + 0.5, 0), 1)}. */
    public static final Activation HARD_SWISH = new Activation(Kind.HARD_SWISH, 0, 0);
    /** {@code 0.5 x (1 + erf(x / sqrt(2)))}, the exact GELU. */
    public static final Activation GELU = new Activation(Kind.GELU, 0, 0);

    /** The functions. */
    public enum Kind {
        /** Identity. */
        NONE,
        /** Relu. */
        RELU,
        /** Clip to [alpha, beta]. */
        CLIP,
        /** LeakyRelu with slope alpha. */
        LEAKY_RELU,
        /** Sigmoid. */
        SIGMOID,
        /** HardSigmoid {@code max(0, min(1, alpha x + beta))}. */
        HARD_SIGMOID,
        /** HardSwish. */
        HARD_SWISH,
        /** Tanh. */
        TANH,
        /** Exact GELU (erf). */
        GELU
    }

    /**
     * Clip to {@code [min, max]}.
     *
     * @param min the lower bound
     * @param max the upper bound
     * @return the activation
     */
    public static Activation clip(float min, float max) {
        return new Activation(Kind.CLIP, min, max);
    }

    /**
     * LeakyRelu.
     *
     * @param alpha the slope below 0
     * @return the activation
     */
    public static Activation leakyRelu(float alpha) {
        return new Activation(Kind.LEAKY_RELU, alpha, 0);
    }

    /**
     * HardSigmoid {@code max(0, min(1, alpha x + beta))}.
     *
     * @param alpha the slope
     * @param beta the offset
     * @return the activation
     */
    public static Activation hardSigmoid(float alpha, float beta) {
        return new Activation(Kind.HARD_SIGMOID, alpha, beta);
    }

    /**
     * Applies the function in place to {@code a[off, off + len)}, with the Vector API when it is in use.
     *
     * @param a the values
     * @param off the first index
     * @param len how many
     */
    public void apply(float[] a, int off, int len) {
        if (kind == Kind.NONE || len <= 0) {
            return;
        }
        if (VectorSupport.enabled()) {
            VectorMath.activate(this, a, off, len);
        } else {
            applyScalar(a, off, len);
        }
    }

    /**
     * Applies the function in place in plain Java; the reference the vector path is tested against.
     *
     * @param a the values
     * @param off the first index
     * @param len how many
     */
    public void applyScalar(float[] a, int off, int len) {
        for (int i = off; i < off + len; i++) {
            a[i] = applyScalar(a[i]);
        }
    }

    /**
     * Applies the function to one value in plain Java.
     *
     * @param x the value
     * @return the result
     */
    public float applyScalar(float x) {
        switch (kind) {
            case RELU:
                return x > 0 ? x : 0f;
            case CLIP:
                return Math.min(Math.max(x, alpha), beta);
            case LEAKY_RELU:
                return x >= 0 ? x : alpha * x;
            case SIGMOID:
                return (float) (1 / (1 + Math.exp(-x)));
            case HARD_SIGMOID:
                return Math.max(0f, Math.min(1f, alpha * x + beta));
            case HARD_SWISH:
                return x * Math.max(0f, Math.min(1f, x / 6f + 0.5f));
            case TANH:
                return (float) Math.tanh(x);
            case GELU:
                return (float) (0.5 * x * (1 + ScalarMath.erf(x / Math.sqrt(2))));
            default:
                return x;
        }
    }
}
