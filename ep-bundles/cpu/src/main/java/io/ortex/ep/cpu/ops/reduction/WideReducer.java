package io.ortex.ep.cpu.ops.reduction;

import io.ortex.api.ElementType;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Reductions of every type but float32: float64, float16 and bfloat16 through double arithmetic, integers and bool
 * through exact long arithmetic (or double for L2, LogSum and LogSumExp, truncated back). Each output gathers its
 * elements into a scratch row first.
 */
final class WideReducer {
    private WideReducer() {
    }

    /**
     * Reduces a tensor of any numeric or bool type.
     *
     * @param kind the reduction
     * @param x the input
     * @param l the layout
     * @param ctx the run context
     * @return the output tensor, of the input's type
     */
    static Tensor reduce(ReduceKind kind, Tensor x, ReduceLayout l, KernelContext ctx) {
        ElementType type = x.type();
        if (type == ElementType.STRING) {
            throw new NotImplementedException(kind.opName + " is not defined for string tensors");
        }
        int[] kept = l.keptOffsets();
        int[] red = l.reducedOffsets();
        int n = l.reduceCount;
        if (type.isFloatingPoint() || !kind.exactOnIntegers()) {
            double[] v = Values.toDoubles(x);
            double[] out = new double[l.outCount];
            ctx.parallelFor(l.outCount, FloatData.chunk(n), (from, to) -> {
                double[] tmp = new double[n];
                for (int o = from; o < to; o++) {
                    for (int r = 0; r < n; r++) {
                        tmp[r] = v[kept[o] + red[r]];
                    }
                    out[o] = row(kind, tmp, n);
                }
            });
            return Values.fromDoubles(type, l.outShape, out);
        }
        long[] v = longs(x);
        long[] out = new long[l.outCount];
        boolean unsigned64 = type == ElementType.UINT64;
        long lowest = lowest(type);
        long highest = highest(type);
        ctx.parallelFor(l.outCount, FloatData.chunk(n), (from, to) -> {
            for (int o = from; o < to; o++) {
                int base = kept[o];
                long acc;
                switch (kind) {
                    case MAX:
                        acc = lowest;
                        for (int r = 0; r < n; r++) {
                            long e = v[base + red[r]];
                            acc = (unsigned64 ? Long.compareUnsigned(e, acc) : Long.compare(e, acc)) > 0 ? e : acc;
                        }
                        break;
                    case MIN:
                        acc = highest;
                        for (int r = 0; r < n; r++) {
                            long e = v[base + red[r]];
                            acc = (unsigned64 ? Long.compareUnsigned(e, acc) : Long.compare(e, acc)) < 0 ? e : acc;
                        }
                        break;
                    case PROD:
                        acc = 1;
                        for (int r = 0; r < n; r++) {
                            acc *= v[base + red[r]];
                        }
                        break;
                    case L1:
                        acc = 0;
                        for (int r = 0; r < n; r++) {
                            long e = v[base + red[r]];
                            acc += unsigned64 ? e : Math.abs(e);
                        }
                        break;
                    case SUM_SQUARE:
                        acc = 0;
                        for (int r = 0; r < n; r++) {
                            long e = v[base + red[r]];
                            acc += e * e;
                        }
                        break;
                    default:
                        acc = 0;
                        for (int r = 0; r < n; r++) {
                            acc += v[base + red[r]];
                        }
                        if (kind == ReduceKind.MEAN && n > 0) {
                            acc = unsigned64 ? Long.divideUnsigned(acc, n) : acc / n;
                        }
                        break;
                }
                out[o] = acc;
            }
        });
        return Values.fromLongs(type, l.outShape, out);
    }

    private static double row(ReduceKind kind, double[] x, int n) {
        if (n == 0) {
            return kind.empty;
        }
        double acc;
        switch (kind) {
            case MAX:
                acc = x[0];
                for (int i = 1; i < n; i++) {
                    acc = Math.max(acc, x[i]);
                }
                return acc;
            case MIN:
                acc = x[0];
                for (int i = 1; i < n; i++) {
                    acc = Math.min(acc, x[i]);
                }
                return acc;
            case PROD:
                acc = 1;
                for (int i = 0; i < n; i++) {
                    acc *= x[i];
                }
                return acc;
            case L1:
                acc = 0;
                for (int i = 0; i < n; i++) {
                    acc += Math.abs(x[i]);
                }
                return acc;
            case L2:
            case SUM_SQUARE:
                acc = 0;
                for (int i = 0; i < n; i++) {
                    acc += x[i] * x[i];
                }
                return kind == ReduceKind.L2 ? Math.sqrt(acc) : acc;
            case LOG_SUM_EXP: {
                double m = x[0];
                for (int i = 1; i < n; i++) {
                    m = Math.max(m, x[i]);
                }
                if (Double.isInfinite(m) || Double.isNaN(m)) {
                    return m;
                }
                acc = 0;
                for (int i = 0; i < n; i++) {
                    acc += Math.exp(x[i] - m);
                }
                return m + Math.log(acc);
            }
            default:
                acc = 0;
                for (int i = 0; i < n; i++) {
                    acc += x[i];
                }
                return kind == ReduceKind.MEAN ? acc / n : kind == ReduceKind.LOG_SUM ? Math.log(acc) : acc;
        }
    }

    private static long[] longs(Tensor x) {
        if (x.type() == ElementType.INT64 || x.type() == ElementType.UINT64) {
            return x.longs();
        }
        long[] v = new long[x.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = x.getLong(i);
        }
        return v;
    }

    /** The smallest value of an integer or bool type, as read by {@link Tensor#getLong}. */
    static long lowest(ElementType type) {
        switch (type) {
            case INT8: return Byte.MIN_VALUE;
            case INT16: return Short.MIN_VALUE;
            case INT32: return Integer.MIN_VALUE;
            case INT64: return Long.MIN_VALUE;
            default: return 0;
        }
    }

    /** The largest value of an integer or bool type, as read by {@link Tensor#getLong}. */
    static long highest(ElementType type) {
        switch (type) {
            case INT8: return Byte.MAX_VALUE;
            case UINT8: return 255;
            case INT16: return Short.MAX_VALUE;
            case UINT16: return 65535;
            case INT32: return Integer.MAX_VALUE;
            case UINT32: return 0xFFFFFFFFL;
            case INT64: return Long.MAX_VALUE;
            case UINT64: return -1L;
            default: return 1;
        }
    }
}
