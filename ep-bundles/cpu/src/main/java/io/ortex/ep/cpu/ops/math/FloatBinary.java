package io.ortex.ep.cpu.ops.math;

import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Elementwise;

/**
 * Float32 loops of the binary functions, one written-out loop per function and stride pattern so that the JIT can
 * vectorize the contiguous ones. Rows come from {@link BroadcastWalk}.
 */
final class FloatBinary {
    private FloatBinary() {
    }

    /**
     * Computes {@code op(a, b)} with broadcasting.
     *
     * @param op a function for which {@link BinaryOp#allowsFloat()} holds
     * @param a A's elements
     * @param shapeA A's shape
     * @param b B's elements
     * @param shapeB B's shape
     * @param shape the broadcast output shape
     * @param ctx the run's context
     * @return the output elements
     */
    static float[] apply(BinaryOp op, float[] a, long[] shapeA, float[] b, long[] shapeB, long[] shape,
            KernelContext ctx) {
        float[] out = new float[Tensor.checkedElementCount(shape)];
        apply(op, a, shapeA, b, shapeB, shape, out, ctx);
        return out;
    }

    /**
     * Computes {@code op(a, b)} with broadcasting into a given array.
     *
     * @param op a function for which {@link BinaryOp#allowsFloat()} holds
     * @param a A's elements
     * @param shapeA A's shape
     * @param b B's elements
     * @param shapeB B's shape
     * @param shape the broadcast output shape
     * @param out where the output elements go, as many as the shape holds
     * @param ctx the run's context
     */
    static void apply(BinaryOp op, float[] a, long[] shapeA, float[] b, long[] shapeB, long[] shape, float[] out,
            KernelContext ctx) {
        if (op == BinaryOp.POW && b.length == 1 && (b[0] == 2f || b[0] == 0.5f || b[0] == 1f)) {
            powScalar(a, b[0], out, ctx);
            return;
        }
        Elementwise.Binary fast = fast(op);
        BroadcastWalk.walk(shapeA, shapeB, shape, ctx, (oa, sa, ob, sb, o, len) -> {
            if (sa == 1 && sb == 1) {
                if (fast != null) {
                    Elementwise.binary(fast, a, oa, b, ob, out, o, len);
                } else {
                    contiguous(op, a, oa, b, ob, out, o, len);
                }
            } else if (sa == 1 && sb == 0) {
                if (fast != null) {
                    Elementwise.binaryScalar(fast, a, oa, b[ob], false, out, o, len);
                } else {
                    scalarB(op, a, oa, b[ob], out, o, len);
                }
            } else if (sa == 0 && sb == 1 && fast != null) {
                Elementwise.binaryScalar(fast, b, ob, a[oa], true, out, o, len);
            } else {
                strided(op, a, oa, sa, b, ob, sb, out, o, len);
            }
        });
    }

    /** The vectorized form of a function, or {@code null} when it has none. */
    private static Elementwise.Binary fast(BinaryOp op) {
        switch (op) {
            case ADD: return Elementwise.Binary.ADD;
            case SUB: return Elementwise.Binary.SUB;
            case MUL: return Elementwise.Binary.MUL;
            case DIV: return Elementwise.Binary.DIV;
            case MAX: return Elementwise.Binary.MAX;
            case MIN: return Elementwise.Binary.MIN;
            default: return null;
        }
    }

    private static void powScalar(float[] a, float e, float[] out, KernelContext ctx) {
        ctx.parallelFor(out.length, BroadcastWalk.GRAIN, (from, to) -> {
            if (e == 2f) {
                for (int i = from; i < to; i++) {
                    out[i] = a[i] * a[i];
                }
            } else if (e == 0.5f) {
                for (int i = from; i < to; i++) {
                    out[i] = (float) Math.sqrt(a[i]);
                }
            } else {
                System.arraycopy(a, from, out, from, to - from);
            }
        });
    }

    private static void contiguous(BinaryOp op, float[] a, int oa, float[] b, int ob, float[] out, int o, int n) {
        switch (op) {
            case ADD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] + b[ob + j]; } break;
            case SUB: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] - b[ob + j]; } break;
            case MUL: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] * b[ob + j]; } break;
            case DIV: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] / b[ob + j]; } break;
            case POW: for (int j = 0; j < n; j++) { out[o + j] = (float) Math.pow(a[oa + j], b[ob + j]); } break;
            case MAX: for (int j = 0; j < n; j++) { out[o + j] = Math.max(a[oa + j], b[ob + j]); } break;
            case MIN: for (int j = 0; j < n; j++) { out[o + j] = Math.min(a[oa + j], b[ob + j]); } break;
            case FMOD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] % b[ob + j]; } break;
            case PRELU:
                for (int j = 0; j < n; j++) {
                    float x = a[oa + j];
                    out[o + j] = x < 0f ? x * b[ob + j] : x;
                }
                break;
            default: throw unsupported(op);
        }
    }

    private static void scalarB(BinaryOp op, float[] a, int oa, float v, float[] out, int o, int n) {
        switch (op) {
            case ADD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] + v; } break;
            case SUB: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] - v; } break;
            case MUL: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] * v; } break;
            case DIV: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] / v; } break;
            case POW: for (int j = 0; j < n; j++) { out[o + j] = (float) Math.pow(a[oa + j], v); } break;
            case MAX: for (int j = 0; j < n; j++) { out[o + j] = Math.max(a[oa + j], v); } break;
            case MIN: for (int j = 0; j < n; j++) { out[o + j] = Math.min(a[oa + j], v); } break;
            case FMOD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j] % v; } break;
            case PRELU:
                for (int j = 0; j < n; j++) {
                    float x = a[oa + j];
                    out[o + j] = x < 0f ? x * v : x;
                }
                break;
            default: throw unsupported(op);
        }
    }

    private static void strided(BinaryOp op, float[] a, int oa, int sa, float[] b, int ob, int sb, float[] out,
            int o, int n) {
        switch (op) {
            case ADD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] + b[ob + j * sb]; } break;
            case SUB: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] - b[ob + j * sb]; } break;
            case MUL: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] * b[ob + j * sb]; } break;
            case DIV: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] / b[ob + j * sb]; } break;
            case POW:
                for (int j = 0; j < n; j++) { out[o + j] = (float) Math.pow(a[oa + j * sa], b[ob + j * sb]); }
                break;
            case MAX: for (int j = 0; j < n; j++) { out[o + j] = Math.max(a[oa + j * sa], b[ob + j * sb]); } break;
            case MIN: for (int j = 0; j < n; j++) { out[o + j] = Math.min(a[oa + j * sa], b[ob + j * sb]); } break;
            case FMOD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] % b[ob + j * sb]; } break;
            case PRELU:
                for (int j = 0; j < n; j++) {
                    float x = a[oa + j * sa];
                    out[o + j] = x < 0f ? x * b[ob + j * sb] : x;
                }
                break;
            default: throw unsupported(op);
        }
    }

    /**
     * Makes the error for a function that has no floating-point form.
     *
     * @param op the function
     * @return the exception to throw
     */
    static NotImplementedException unsupported(BinaryOp op) {
        return new NotImplementedException(op + " is not defined for floating-point inputs");
    }
}
