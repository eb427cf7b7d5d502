package io.ortex.ep.cpu.ops;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.OpRegistry;

/**
 * Element-wise ops: binary arithmetic with broadcasting, and unary activations. Float32 has loops written out per
 * op so the JIT can vectorize them; other numeric types go through double or long arithmetic.
 */
public final class ElementwiseOps {
    private ElementwiseOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        for (Arith op : Arith.values()) {
            r.register(op.opName, node -> (in, ctx) -> new Tensor[] {binary(op, in[0], in[1])});
        }
        r.register("Relu", node -> unaryFloat(UnaryKind.RELU));
    }

    /** The binary arithmetic ops. */
    enum Arith {
        ADD("Add"), SUB("Sub"), MUL("Mul"), DIV("Div");

        final String opName;

        Arith(String opName) {
            this.opName = opName;
        }
    }

    static Tensor binary(Arith op, Tensor a, Tensor b) {
        if (a.type() != b.type()) {
            throw new InvalidArgumentException(op.opName + " inputs have different types " + a.type() + " and "
                    + b.type());
        }
        long[] shape = Broadcast.shape(a.shape(), b.shape());
        if (a.type() == ElementType.FLOAT) {
            return Tensor.ofFloats(floatBinary(op, a, b, shape), shape);
        }
        if (a.type() == ElementType.STRING || a.type() == ElementType.BOOL) {
            throw new NotImplementedException(op.opName + " is not implemented for " + a.type());
        }
        int[] ia = Broadcast.indexMap(a.shape(), shape);
        int[] ib = Broadcast.indexMap(b.shape(), shape);
        if (a.type().isFloatingPoint()) {
            double[] out = new double[ia.length];
            for (int i = 0; i < out.length; i++) {
                double u = a.getDouble(ia[i]);
                double v = b.getDouble(ib[i]);
                out[i] = op == Arith.ADD ? u + v : op == Arith.SUB ? u - v : op == Arith.MUL ? u * v : u / v;
            }
            return Values.fromDoubles(a.type(), shape, out);
        }
        boolean unsigned64 = a.type() == ElementType.UINT64;
        long[] out = new long[ia.length];
        for (int i = 0; i < out.length; i++) {
            long u = a.getLong(ia[i]);
            long v = b.getLong(ib[i]);
            switch (op) {
                case ADD: out[i] = u + v; break;
                case SUB: out[i] = u - v; break;
                case MUL: out[i] = u * v; break;
                default:
                    if (v == 0) {
                        throw new InvalidArgumentException("integer division by zero");
                    }
                    out[i] = unsigned64 ? Long.divideUnsigned(u, v) : u / v;
            }
        }
        return Values.fromLongs(a.type(), shape, out);
    }



    private static float[] floatBinary(Arith op, Tensor ta, Tensor tb, long[] shape) {
        float[] a = ta.floats();
        float[] b = tb.floats();
        int n = Tensor.checkedElementCount(shape);
        float[] out = new float[n];
        if (a.length == n && b.length == n) {
            switch (op) {
                case ADD: for (int i = 0; i < n; i++) { out[i] = a[i] + b[i]; } break;
                case SUB: for (int i = 0; i < n; i++) { out[i] = a[i] - b[i]; } break;
                case MUL: for (int i = 0; i < n; i++) { out[i] = a[i] * b[i]; } break;
                default: for (int i = 0; i < n; i++) { out[i] = a[i] / b[i]; } break;
            }
            return out;
        }
        // general case: walk the output row by row; within a row each input advances by a fixed stride
        int rank = shape.length;
        int inner = rank == 0 ? 1 : (int) shape[rank - 1];
        int[] sa = Broadcast.strides(ta.shape(), shape);
        int[] sb = Broadcast.strides(tb.shape(), shape);
        int strideA = rank == 0 ? 0 : sa[rank - 1];
        int strideB = rank == 0 ? 0 : sb[rank - 1];
        int rows = inner == 0 ? 0 : n / inner;
        int[] counter = new int[Math.max(rank - 1, 0)];
        int offA = 0;
        int offB = 0;
        for (int row = 0; row < rows; row++) {
            int o = row * inner;
            switch (op) {
                case ADD: for (int j = 0; j < inner; j++) { out[o + j] = a[offA + j * strideA] + b[offB + j * strideB]; } break;
                case SUB: for (int j = 0; j < inner; j++) { out[o + j] = a[offA + j * strideA] - b[offB + j * strideB]; } break;
                case MUL: for (int j = 0; j < inner; j++) { out[o + j] = a[offA + j * strideA] * b[offB + j * strideB]; } break;
                default: for (int j = 0; j < inner; j++) { out[o + j] = a[offA + j * strideA] / b[offB + j * strideB]; } break;
            }
            for (int axis = rank - 2; axis >= 0; axis--) {
                counter[axis]++;
                offA += sa[axis];
                offB += sb[axis];
                if (counter[axis] < shape[axis]) {
                    break;
                }
                offA -= sa[axis] * counter[axis];
                offB -= sb[axis] * counter[axis];
                counter[axis] = 0;
            }
        }
        return out;
    }

    private enum UnaryKind { RELU }

    private static CpuKernel unaryFloat(UnaryKind kind) {
        return (in, ctx) -> {
            float[] x = in[0].floats();
            float[] out = new float[x.length];
            for (int i = 0; i < x.length; i++) {
                out[i] = Math.max(x[i], 0f);
            }
            return new Tensor[] {Tensor.ofFloats(out, in[0].shape())};
        };
    }
}
