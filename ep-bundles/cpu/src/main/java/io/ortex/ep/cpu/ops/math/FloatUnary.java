package io.ortex.ep.cpu.ops.math;

import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Elementwise;

/**
 * Float32 loops of the unary functions: the function is chosen once per chunk and each has its own plain loop,
 * with no call per element other than to static math the JIT inlines.
 */
final class FloatUnary {
    private FloatUnary() {
    }

    /**
     * Applies a unary function to every element.
     *
     * @param op the function
     * @param x the input elements (not modified)
     * @param alpha the first parameter (see {@link UnaryOp})
     * @param beta the second parameter
     * @param ctx the run's context
     * @return the output elements
     */
    static float[] apply(UnaryOp op, float[] x, float alpha, float beta, KernelContext ctx) {
        float[] out = new float[x.length];
        apply(op, x, out, alpha, beta, ctx);
        return out;
    }

    /**
     * Applies a unary function to every element, into a given array.
     *
     * @param op the function
     * @param x the input elements (not modified)
     * @param out where the outputs go, as many as the inputs
     * @param alpha the first parameter (see {@link UnaryOp})
     * @param beta the second parameter
     * @param ctx the run's context
     */
    static void apply(UnaryOp op, float[] x, float[] out, float alpha, float beta, KernelContext ctx) {
        Elementwise.Unary fast = fast(op);
        if (fast != null) {
            ctx.parallelFor(x.length, BroadcastWalk.GRAIN, (from, to) -> Elementwise.unary(fast, x, from, out, from,
                    to - from));
        } else {
            ctx.parallelFor(x.length, BroadcastWalk.GRAIN, (from, to) -> loop(op, x, out, from, to, alpha, beta));
        }
    }

    /** The vectorized form of a function, or {@code null} when it has none. */
    private static Elementwise.Unary fast(UnaryOp op) {
        switch (op) {
            case ABS: return Elementwise.Unary.ABS;
            case NEG: return Elementwise.Unary.NEG;
            case SQRT: return Elementwise.Unary.SQRT;
            case RECIPROCAL: return Elementwise.Unary.RECIPROCAL;
            case EXP: return Elementwise.Unary.EXP;
            case LOG: return Elementwise.Unary.LOG;
            case ERF: return Elementwise.Unary.ERF;
            case RELU: return Elementwise.Unary.RELU;
            case SIGMOID: return Elementwise.Unary.SIGMOID;
            case TANH: return Elementwise.Unary.TANH;
            default: return null;
        }
    }

    /** The functions without a vectorized form. */
    private static void loop(UnaryOp op, float[] x, float[] out, int from, int to, float alpha, float beta) {
        switch (op) {
            case LEAKY_RELU:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = v < 0f ? alpha * v : v;
                }
                break;
            case HARD_SIGMOID:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = Math.max(0f, Math.min(1f, alpha * v + beta));
                }
                break;
            case HARD_SWISH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = v * Math.max(0f, Math.min(1f, v / 6f + 0.5f));
                }
                break;
            case FLOOR:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.floor(v);
                }
                break;
            case CEIL:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.ceil(v);
                }
                break;
            case ROUND:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.rint(v);
                }
                break;
            case SIGN:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = Math.signum(v);
                }
                break;
            case SIN:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.sin(v);
                }
                break;
            case COS:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.cos(v);
                }
                break;
            case TAN:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.tan(v);
                }
                break;
            case ASIN:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.asin(v);
                }
                break;
            case ACOS:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.acos(v);
                }
                break;
            case ATAN:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.atan(v);
                }
                break;
            case SINH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.sinh(v);
                }
                break;
            case COSH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) Math.cosh(v);
                }
                break;
            case ASINH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) MathFunctions.asinh(v);
                }
                break;
            case ACOSH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) MathFunctions.acosh(v);
                }
                break;
            case ATANH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) MathFunctions.atanh(v);
                }
                break;
            case ELU:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = v < 0f ? (float) (alpha * Math.expm1(v)) : v;
                }
                break;
            case SELU:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = v <= 0f ? (float) (beta * alpha * Math.expm1(v)) : beta * v;
                }
                break;
            case CELU:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = Math.max(0f, v) + Math.min(0f, (float) (alpha * Math.expm1(v / alpha)));
                }
                break;
            case SOFTPLUS:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) MathFunctions.softplus(v);
                }
                break;
            case SOFTSIGN:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = v / (1f + Math.abs(v));
                }
                break;
            case MISH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) (v * Math.tanh(MathFunctions.softplus(v)));
                }
                break;
            case GELU:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) MathFunctions.gelu(v);
                }
                break;
            case GELU_TANH:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = (float) MathFunctions.geluTanh(v);
                }
                break;
            case THRESHOLDED_RELU:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = v > alpha ? v : 0f;
                }
                break;
            case SHRINK:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = v < -alpha ? v + beta : v > alpha ? v - beta : 0f;
                }
                break;
            case CLIP:
                for (int i = from; i < to; i++) {
                    float v = x[i];
                    out[i] = Math.min(Math.max(v, alpha), beta);
                }
                break;
            default:
                throw new IllegalStateException(op.name());
        }
    }
}
