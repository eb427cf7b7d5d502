package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * The comparison ops (Equal, Less, Greater, LessOrEqual, GreaterOrEqual) and the logical ops (And, Or, Xor) with
 * broadcasting and a bool output. Float32 has its own loops; float64 and the half types compare as doubles;
 * integers compare as longs (uint64 unsigned); strings and bools support Equal.
 */
final class CompareKernels {
    private CompareKernels() {
    }

    /** A comparison. */
    enum Op {
        /** {@code a == b}. */
        EQ("Equal"),
        /** {@code a < b}. */
        LT("Less"),
        /** {@code a > b}. */
        GT("Greater"),
        /** {@code a <= b}. */
        LE("LessOrEqual"),
        /** {@code a >= b}. */
        GE("GreaterOrEqual");

        final String opName;

        Op(String opName) {
            this.opName = opName;
        }
    }

    /** A logical function of two bools. */
    enum Logic {
        /** And. */
        AND,
        /** Or. */
        OR,
        /** Exclusive or. */
        XOR
    }

    /**
     * Compares two tensors element by element.
     *
     * @param op the comparison
     * @param a the first input
     * @param b the second input, of the same type
     * @param ctx the run's context
     * @return a bool tensor of the broadcast shape
     */
    static Tensor compare(Op op, Tensor a, Tensor b, KernelContext ctx) {
        if (a.type() != b.type()) {
            throw new InvalidArgumentException(op.opName + " inputs have different types " + a.type() + " and "
                    + b.type());
        }
        long[] shape = Broadcast.shape(a.shape(), b.shape());
        boolean[] out = new boolean[Tensor.checkedElementCount(shape)];
        ElementType t = a.type();
        if (t == ElementType.FLOAT) {
            floats(op, a.floats(), a.shape(), b.floats(), b.shape(), shape, out, ctx);
        } else if (t.isFloatingPoint()) {
            doubles(op, Values.toDoubles(a), a.shape(), Values.toDoubles(b), b.shape(), shape, out, ctx);
        } else if (t.isInteger() || t == ElementType.BOOL) {
            longs(op, ordered(a), a.shape(), ordered(b), b.shape(), shape, out, ctx);
        } else if (t == ElementType.STRING && op == Op.EQ) {
            String[] x = a.strings();
            String[] y = b.strings();
            int[] ia = Broadcast.indexMap(a.shape(), shape);
            int[] ib = Broadcast.indexMap(b.shape(), shape);
            for (int i = 0; i < out.length; i++) {
                out[i] = x[ia[i]].equals(y[ib[i]]);
            }
        } else {
            throw new NotImplementedException(op.opName + " is not implemented for " + t);
        }
        return Tensor.ofBooleans(out, shape);
    }

    /** Widens integers so that signed comparison orders them as their type does (uint64 gets its top bit flipped). */
    private static long[] ordered(Tensor t) {
        long[] v = Values.toLongs(t);
        if (t.type() != ElementType.UINT64) {
            return v;
        }
        long[] f = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = v[i] ^ Long.MIN_VALUE;
        }
        return f;
    }

    private static void floats(Op op, float[] a, long[] sa0, float[] b, long[] sb0, long[] shape, boolean[] out,
            KernelContext ctx) {
        BroadcastWalk.walk(sa0, sb0, shape, ctx, (oa, sa, ob, sb, o, n) -> {
            switch (op) {
                case EQ: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] == b[ob + j * sb]; } break;
                case LT: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] < b[ob + j * sb]; } break;
                case GT: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] > b[ob + j * sb]; } break;
                case LE: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] <= b[ob + j * sb]; } break;
                default: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] >= b[ob + j * sb]; } break;
            }
        });
    }

    private static void doubles(Op op, double[] a, long[] sa0, double[] b, long[] sb0, long[] shape, boolean[] out,
            KernelContext ctx) {
        BroadcastWalk.walk(sa0, sb0, shape, ctx, (oa, sa, ob, sb, o, n) -> {
            switch (op) {
                case EQ: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] == b[ob + j * sb]; } break;
                case LT: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] < b[ob + j * sb]; } break;
                case GT: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] > b[ob + j * sb]; } break;
                case LE: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] <= b[ob + j * sb]; } break;
                default: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] >= b[ob + j * sb]; } break;
            }
        });
    }

    private static void longs(Op op, long[] a, long[] sa0, long[] b, long[] sb0, long[] shape, boolean[] out,
            KernelContext ctx) {
        BroadcastWalk.walk(sa0, sb0, shape, ctx, (oa, sa, ob, sb, o, n) -> {
            switch (op) {
                case EQ: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] == b[ob + j * sb]; } break;
                case LT: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] < b[ob + j * sb]; } break;
                case GT: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] > b[ob + j * sb]; } break;
                case LE: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] <= b[ob + j * sb]; } break;
                default: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] >= b[ob + j * sb]; } break;
            }
        });
    }

    /**
     * Applies a logical function to two bool tensors.
     *
     * @param op the function
     * @param a the first input
     * @param b the second input
     * @param ctx the run's context
     * @return a bool tensor of the broadcast shape
     */
    static Tensor logic(Logic op, Tensor a, Tensor b, KernelContext ctx) {
        if (a.type() != ElementType.BOOL || b.type() != ElementType.BOOL) {
            throw new InvalidArgumentException(op + " needs bool inputs, got " + a.type() + " and " + b.type());
        }
        long[] shape = Broadcast.shape(a.shape(), b.shape());
        boolean[] x = a.booleans();
        boolean[] y = b.booleans();
        boolean[] out = new boolean[Tensor.checkedElementCount(shape)];
        BroadcastWalk.walk(a.shape(), b.shape(), shape, ctx, (oa, sa, ob, sb, o, n) -> {
            switch (op) {
                case AND: for (int j = 0; j < n; j++) { out[o + j] = x[oa + j * sa] & y[ob + j * sb]; } break;
                case OR: for (int j = 0; j < n; j++) { out[o + j] = x[oa + j * sa] | y[ob + j * sb]; } break;
                default: for (int j = 0; j < n; j++) { out[o + j] = x[oa + j * sa] ^ y[ob + j * sb]; } break;
            }
        });
        return Tensor.ofBooleans(out, shape);
    }
}
