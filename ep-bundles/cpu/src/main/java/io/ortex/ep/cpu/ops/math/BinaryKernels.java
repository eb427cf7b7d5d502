package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Type dispatch of the broadcasting binary functions: float32 through {@link FloatBinary}, float16 and bfloat16
 * computed in float32 and rounded back, float64 and integers through {@link WideBinary}. Also Pow with mixed
 * base and exponent types, the variadic folds (Max, Min, Sum, Mean), Mod and BitShift.
 */
final class BinaryKernels {
    private BinaryKernels() {
    }

    /**
     * Computes {@code op(a, b)}; both inputs must have the same type.
     *
     * @param opName the ONNX op, for messages
     * @param op the function
     * @param a the first input
     * @param b the second input
     * @param ctx the run's context
     * @return the output, of the inputs' type and the broadcast shape
     */
    static Tensor apply(String opName, BinaryOp op, Tensor a, Tensor b, KernelContext ctx) {
        if (a.type() != b.type()) {
            throw new InvalidArgumentException(opName + " inputs have different types " + a.type() + " and "
                    + b.type());
        }
        long[] shape = Broadcast.shape(a.shape(), b.shape());
        return compute(opName, op, a.type(), a, b, shape, ctx);
    }

    /**
     * Creates the kernel for a Mod node: the remainder with the divisor's sign, or with the dividend's when
     * {@code fmod=1} (required for floating-point inputs).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel mod(NodeView node) {
        long fmod = node.intAttr("fmod", 0);
        if (fmod != 0 && fmod != 1) {
            throw new InvalidModelException("Mod attribute 'fmod' must be 0 or 1, got " + fmod);
        }
        return (in, ctx) -> {
            if (in[0].type().isFloatingPoint() && fmod == 0) {
                throw new InvalidArgumentException("Mod attribute 'fmod' must be 1 for " + in[0].type()
                        + " inputs");
            }
            return new Tensor[] {apply("Mod", fmod == 1 ? BinaryOp.FMOD : BinaryOp.MOD, in[0], in[1], ctx)};
        };
    }

    /**
     * Creates the kernel for a BitShift node ({@code direction} LEFT or RIGHT, unsigned integers only).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel bitShift(NodeView node) {
        String direction = node.stringAttr("direction", "");
        BinaryOp op;
        if ("LEFT".equals(direction)) {
            op = BinaryOp.SHL;
        } else if ("RIGHT".equals(direction)) {
            op = BinaryOp.SHR;
        } else {
            throw new InvalidModelException("BitShift attribute 'direction' must be LEFT or RIGHT, got '"
                    + direction + "'");
        }
        return (in, ctx) -> {
            if (!in[0].type().isUnsigned()) {
                throw new NotImplementedException("BitShift is defined for unsigned integers, not " + in[0].type());
            }
            return new Tensor[] {apply("BitShift", op, in[0], in[1], ctx)};
        };
    }

    private static Tensor compute(String opName, BinaryOp op, ElementType type, Tensor a, Tensor b, long[] shape,
            KernelContext ctx) {
        switch (type) {
            case FLOAT: {
                Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, shape);
                FloatBinary.apply(checkFloat(opName, op, type), a.floats(), a.shape(), b.floats(), b.shape(), shape,
                        out.floats(), ctx);
                return out;
            }
            case FLOAT16: case BFLOAT16:
                return Values.fromFloats(type, shape, FloatBinary.apply(checkFloat(opName, op, type),
                        Values.toFloats(a), a.shape(), Values.toFloats(b), b.shape(), shape, ctx));
            case DOUBLE:
                return Tensor.ofDoubles(WideBinary.doubles(checkFloat(opName, op, type), Values.toDoubles(a),
                        a.shape(), Values.toDoubles(b), b.shape(), shape, ctx), shape);
            default:
                if (!type.isInteger()) {
                    throw new NotImplementedException(opName + " is not implemented for " + type);
                }
                return Values.fromLongs(type, shape, WideBinary.longs(op, type, Values.toLongs(a), a.shape(),
                        Values.toLongs(b), b.shape(), shape, ctx));
        }
    }

    private static BinaryOp checkFloat(String opName, BinaryOp op, ElementType type) {
        if (!op.allowsFloat()) {
            throw new NotImplementedException(opName + " is not defined for " + type + " inputs");
        }
        return op;
    }

    /**
     * Computes Pow, whose exponent may have another numeric type than the base; the output has the base's type.
     * Integer bases with floating-point exponents compute in double and truncate.
     *
     * @param x the base
     * @param y the exponent
     * @param ctx the run's context
     * @return the power
     */
    static Tensor pow(Tensor x, Tensor y, KernelContext ctx) {
        ElementType bt = x.type();
        ElementType et = y.type();
        if (bt == et) {
            return apply("Pow", BinaryOp.POW, x, y, ctx);
        }
        if (bt == ElementType.STRING || bt == ElementType.BOOL || et == ElementType.STRING
                || et == ElementType.BOOL) {
            throw new NotImplementedException("Pow is not implemented for " + bt + " ^ " + et);
        }
        long[] shape = Broadcast.shape(x.shape(), y.shape());
        if (bt == ElementType.FLOAT || bt == ElementType.FLOAT16 || bt == ElementType.BFLOAT16) {
            float[] e = Values.toFloats(y);
            if (et == ElementType.DOUBLE) {
                return Values.fromDoubles(bt, shape, WideBinary.doubles(BinaryOp.POW, Values.toDoubles(x),
                        x.shape(), y.doubles(), y.shape(), shape, ctx));
            }
            return Values.fromFloats(bt, shape, FloatBinary.apply(BinaryOp.POW, Values.toFloats(x), x.shape(), e,
                    y.shape(), shape, ctx));
        }
        if (bt == ElementType.DOUBLE || et.isFloatingPoint()) {
            return Values.fromDoubles(bt, shape, WideBinary.doubles(BinaryOp.POW, Values.toDoubles(x), x.shape(),
                    Values.toDoubles(y), y.shape(), shape, ctx));
        }
        return Values.fromLongs(bt, shape, WideBinary.longs(BinaryOp.POW, bt, Values.toLongs(x), x.shape(),
                Values.toLongs(y), y.shape(), shape, ctx));
    }

    /**
     * Folds a variadic op over its inputs with broadcasting (Max, Min, Sum); Mean is Sum divided by the count.
     *
     * @param opName the ONNX op
     * @param op the pairwise function
     * @param mean whether to divide by the number of inputs
     * @param in the inputs, at least one
     * @param ctx the run's context
     * @return the result
     */
    static Tensor fold(String opName, BinaryOp op, boolean mean, Tensor[] in, KernelContext ctx) {
        if (in.length == 0 || in[0] == null) {
            throw new InvalidArgumentException(opName + " needs at least one input");
        }
        Tensor acc = in[0];
        for (int i = 1; i < in.length; i++) {
            acc = apply(opName, op, acc, in[i], ctx);
        }
        if (!mean || in.length == 1) {
            return acc;
        }
        ElementType t = acc.type();
        if (!t.isFloatingPoint()) {
            throw new NotImplementedException("Mean is not implemented for " + t);
        }
        Tensor count = Values.fromDoubles(t, new long[0], new double[] {in.length});
        return apply(opName, BinaryOp.DIV, acc, count, ctx);
    }
}
