package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * Float64 and integer loops of the binary functions. Integers of every width are computed in {@code long} and
 * narrowed (wrapping) to the input type; unsigned types are zero-extended, and uint64 divides, takes remainders
 * and compares unsigned.
 */
final class WideBinary {
    private WideBinary() {
    }

    /**
     * Computes {@code op(a, b)} on float64 values.
     *
     * @param op a function defined for floating point
     * @param a A's elements
     * @param shapeA A's shape
     * @param b B's elements
     * @param shapeB B's shape
     * @param shape the output shape
     * @param ctx the run's context
     * @return the output elements
     */
    static double[] doubles(BinaryOp op, double[] a, long[] shapeA, double[] b, long[] shapeB, long[] shape,
            KernelContext ctx) {
        double[] out = new double[Tensor.checkedElementCount(shape)];
        BroadcastWalk.walk(shapeA, shapeB, shape, ctx, (oa, sa, ob, sb, o, n) -> {
            switch (op) {
                case ADD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] + b[ob + j * sb]; } break;
                case SUB: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] - b[ob + j * sb]; } break;
                case MUL: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] * b[ob + j * sb]; } break;
                case DIV: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] / b[ob + j * sb]; } break;
                case POW: for (int j = 0; j < n; j++) { out[o + j] = Math.pow(a[oa + j * sa], b[ob + j * sb]); } break;
                case MAX: for (int j = 0; j < n; j++) { out[o + j] = Math.max(a[oa + j * sa], b[ob + j * sb]); } break;
                case MIN: for (int j = 0; j < n; j++) { out[o + j] = Math.min(a[oa + j * sa], b[ob + j * sb]); } break;
                case FMOD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] % b[ob + j * sb]; } break;
                case PRELU:
                    for (int j = 0; j < n; j++) {
                        double x = a[oa + j * sa];
                        out[o + j] = x < 0 ? x * b[ob + j * sb] : x;
                    }
                    break;
                default: throw FloatBinary.unsupported(op);
            }
        });
        return out;
    }

    /**
     * Computes {@code op(a, b)} on integers widened to long.
     *
     * @param op the function
     * @param type the integer type of both inputs (decides unsigned arithmetic and the shift width)
     * @param a A's elements, widened
     * @param shapeA A's shape
     * @param b B's elements, widened
     * @param shapeB B's shape
     * @param shape the output shape
     * @param ctx the run's context
     * @return the output elements, to be narrowed to {@code type}
     * @throws InvalidArgumentException on integer division by zero
     */
    static long[] longs(BinaryOp op, ElementType type, long[] a, long[] shapeA, long[] b, long[] shapeB,
            long[] shape, KernelContext ctx) {
        long[] out = new long[Tensor.checkedElementCount(shape)];
        boolean u64 = type == ElementType.UINT64;
        int width = type.byteSize() * 8;
        BroadcastWalk.walk(shapeA, shapeB, shape, ctx, (oa, sa, ob, sb, o, n) -> {
            switch (op) {
                case ADD: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] + b[ob + j * sb]; } break;
                case SUB: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] - b[ob + j * sb]; } break;
                case MUL: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] * b[ob + j * sb]; } break;
                case AND: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] & b[ob + j * sb]; } break;
                case OR: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] | b[ob + j * sb]; } break;
                case XOR: for (int j = 0; j < n; j++) { out[o + j] = a[oa + j * sa] ^ b[ob + j * sb]; } break;
                case DIV:
                    for (int j = 0; j < n; j++) {
                        long v = nonZero(b[ob + j * sb]);
                        out[o + j] = u64 ? Long.divideUnsigned(a[oa + j * sa], v) : a[oa + j * sa] / v;
                    }
                    break;
                case FMOD:
                    for (int j = 0; j < n; j++) {
                        long v = nonZero(b[ob + j * sb]);
                        out[o + j] = u64 ? Long.remainderUnsigned(a[oa + j * sa], v) : a[oa + j * sa] % v;
                    }
                    break;
                case MOD:
                    for (int j = 0; j < n; j++) {
                        long v = nonZero(b[ob + j * sb]);
                        long m = u64 ? Long.remainderUnsigned(a[oa + j * sa], v) : a[oa + j * sa] % v;
                        out[o + j] = !u64 && m != 0 && (m < 0) != (v < 0) ? m + v : m;
                    }
                    break;
                case MAX:
                    for (int j = 0; j < n; j++) {
                        long x = a[oa + j * sa];
                        long y = b[ob + j * sb];
                        out[o + j] = (u64 ? Long.compareUnsigned(x, y) : Long.compare(x, y)) >= 0 ? x : y;
                    }
                    break;
                case MIN:
                    for (int j = 0; j < n; j++) {
                        long x = a[oa + j * sa];
                        long y = b[ob + j * sb];
                        out[o + j] = (u64 ? Long.compareUnsigned(x, y) : Long.compare(x, y)) <= 0 ? x : y;
                    }
                    break;
                case POW: for (int j = 0; j < n; j++) { out[o + j] = intPow(a[oa + j * sa], b[ob + j * sb]); } break;
                case PRELU:
                    for (int j = 0; j < n; j++) {
                        long x = a[oa + j * sa];
                        out[o + j] = x < 0 ? x * b[ob + j * sb] : x;
                    }
                    break;
                case SHL:
                    for (int j = 0; j < n; j++) {
                        long s = b[ob + j * sb];
                        out[o + j] = Long.compareUnsigned(s, width) >= 0 ? 0 : a[oa + j * sa] << s;
                    }
                    break;
                case SHR:
                    for (int j = 0; j < n; j++) {
                        long s = b[ob + j * sb];
                        out[o + j] = Long.compareUnsigned(s, width) >= 0 ? 0 : a[oa + j * sa] >>> s;
                    }
                    break;
                default: throw new IllegalStateException(op.name());
            }
        });
        return out;
    }

    /**
     * Raises an integer to an integer power with wrapping multiplication; negative exponents truncate towards zero
     * as {@code 1 / base^-e} does.
     *
     * @param base the base
     * @param e the exponent
     * @return the power
     */
    static long intPow(long base, long e) {
        if (e < 0) {
            if (base == 1) {
                return 1;
            }
            if (base == -1) {
                return (e & 1) == 0 ? 1 : -1;
            }
            if (base == 0) {
                throw new InvalidArgumentException("Pow: zero raised to a negative integer power");
            }
            return 0;
        }
        long result = 1;
        long b = base;
        long k = e;
        while (k != 0) {
            if ((k & 1) != 0) {
                result *= b;
            }
            b *= b;
            k >>>= 1;
        }
        return result;
    }

    private static long nonZero(long v) {
        if (v == 0) {
            throw new InvalidArgumentException("integer division by zero");
        }
        return v;
    }
}
