package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Type dispatch of the unary functions: float32 through {@link FloatUnary}, float16 and bfloat16 computed in
 * float32 and rounded back, float64 through {@link MathFunctions#apply}, and the functions that ONNX also defines
 * on integers (Abs, Neg, Sign, Relu, Shrink) through long arithmetic.
 */
final class UnaryKernels {
    private UnaryKernels() {
    }

    /**
     * Applies a unary function.
     *
     * @param opName the ONNX op, for messages
     * @param op the function
     * @param x the input
     * @param alpha the first parameter (see {@link UnaryOp})
     * @param beta the second parameter
     * @param ctx the run's context
     * @return the output, of the input's type and shape
     */
    static Tensor apply(String opName, UnaryOp op, Tensor x, float alpha, float beta, KernelContext ctx) {
        ElementType t = x.type();
        switch (t) {
            case FLOAT: {
                Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, x.shape());
                FloatUnary.apply(op, x.floats(), out.floats(), alpha, beta, ctx);
                return out;
            }
            case FLOAT16: case BFLOAT16:
                return Values.fromFloats(t, x.shape(), FloatUnary.apply(op, Values.toFloats(x), alpha, beta, ctx));
            case DOUBLE: {
                double[] v = x.doubles();
                double[] out = new double[v.length];
                for (int i = 0; i < v.length; i++) {
                    out[i] = MathFunctions.apply(op, v[i], alpha, beta);
                }
                return Tensor.ofDoubles(out, x.shape());
            }
            default:
                if (!t.isInteger()) {
                    throw new NotImplementedException(opName + " is not implemented for " + t);
                }
                return integer(opName, op, x, alpha, beta);
        }
    }

    /**
     * Creates the kernel for a Gelu node (opset 20), exact or with {@code approximate=tanh}.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel gelu(NodeView node) {
        String approximate = node.stringAttr("approximate", "none");
        UnaryOp op;
        if ("none".equals(approximate)) {
            op = UnaryOp.GELU;
        } else if ("tanh".equals(approximate)) {
            op = UnaryOp.GELU_TANH;
        } else {
            throw new NotImplementedException("Gelu attribute 'approximate' = '" + approximate
                    + "' is not supported (none or tanh)");
        }
        return (in, ctx) -> new Tensor[] {apply("Gelu", op, in[0], 0f, 0f, ctx)};
    }

    private static Tensor integer(String opName, UnaryOp op, Tensor x, float alpha, float beta) {
        long[] v = Values.toLongs(x);
        long[] out = new long[v.length];
        boolean unsigned = x.type().isUnsigned();
        switch (op) {
            case ABS:
                for (int i = 0; i < v.length; i++) {
                    out[i] = unsigned ? v[i] : Math.abs(v[i]);
                }
                break;
            case NEG:
                for (int i = 0; i < v.length; i++) {
                    out[i] = -v[i];
                }
                break;
            case SIGN:
                for (int i = 0; i < v.length; i++) {
                    out[i] = v[i] == 0 ? 0 : unsigned || v[i] > 0 ? 1 : -1;
                }
                break;
            case RELU:
                for (int i = 0; i < v.length; i++) {
                    out[i] = !unsigned && v[i] < 0 ? 0 : v[i];
                }
                break;
            case SHRINK:
                for (int i = 0; i < v.length; i++) {
                    double d = x.type() == ElementType.UINT64 ? x.getDouble(i) : v[i];
                    out[i] = d < -alpha ? (long) (d + beta) : d > alpha ? (long) (d - beta) : 0;
                }
                break;
            default:
                throw new NotImplementedException(opName + " is not implemented for " + x.type());
        }
        return Values.fromLongs(x.type(), x.shape(), out);
    }

    /**
     * Computes BitwiseNot of an integer tensor.
     *
     * @param x the input
     * @return the complement, same type and shape
     */
    static Tensor bitwiseNot(Tensor x) {
        if (!x.type().isInteger()) {
            throw new NotImplementedException("BitwiseNot is not implemented for " + x.type());
        }
        long[] v = Values.toLongs(x);
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = ~v[i];
        }
        return Values.fromLongs(x.type(), x.shape(), out);
    }

    /**
     * Computes Not of a bool tensor.
     *
     * @param x the input
     * @return the negation
     */
    static Tensor not(Tensor x) {
        if (x.type() != ElementType.BOOL) {
            throw new NotImplementedException("Not is not implemented for " + x.type());
        }
        boolean[] v = x.booleans();
        boolean[] out = new boolean[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = !v[i];
        }
        return Tensor.ofBooleans(out, x.shape());
    }

    /**
     * Computes IsNaN or IsInf.
     *
     * @param x a floating-point input
     * @param nan true for IsNaN
     * @param negative IsInf's detect_negative
     * @param positive IsInf's detect_positive
     * @return a bool tensor of the same shape
     */
    static Tensor classify(Tensor x, boolean nan, boolean negative, boolean positive) {
        if (!x.type().isFloatingPoint()) {
            throw new NotImplementedException((nan ? "IsNaN" : "IsInf") + " is not implemented for " + x.type());
        }
        boolean[] out = new boolean[x.size()];
        if (x.type() == ElementType.FLOAT) {
            float[] v = x.floats();
            for (int i = 0; i < v.length; i++) {
                float f = v[i];
                out[i] = nan ? f != f : (positive && f == Float.POSITIVE_INFINITY)
                        || (negative && f == Float.NEGATIVE_INFINITY);
            }
        } else {
            double[] v = Values.toDoubles(x);
            for (int i = 0; i < v.length; i++) {
                double d = v[i];
                out[i] = nan ? Double.isNaN(d) : (positive && d == Double.POSITIVE_INFINITY)
                        || (negative && d == Double.NEGATIVE_INFINITY);
            }
        }
        return Tensor.ofBooleans(out, x.shape());
    }
}
