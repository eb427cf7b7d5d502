package io.ortex.ep.cpu.ops.reduction;

import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.support.FloatData;
import java.util.Arrays;

/**
 * Float32 reductions. Rows reduced along the last axes are summed with several double accumulators; reductions
 * over a middle block of axes accumulate whole inner rows at once; any other set of axes gathers each output's
 * elements first. Work is split over output elements (or outer rows) with {@code parallelFor}.
 */
public final class FloatReducer {
    private FloatReducer() {
    }

    /**
     * Reduces a float32 array.
     *
     * @param kind the reduction
     * @param x the input elements
     * @param l the layout
     * @param ctx the run context
     * @return the output elements
     */
    static float[] reduce(ReduceKind kind, float[] x, ReduceLayout l, KernelContext ctx) {
        float[] out = new float[l.outCount];
        int n = l.reduceCount;
        if (l.outCount == 0) {
            return out;
        }
        if (n == 0) {
            Arrays.fill(out, (float) kind.empty);
            return out;
        }
        if (l.contiguous && l.inner == 1) {
            ctx.parallelFor(l.outCount, FloatData.chunk(n), (from, to) -> {
                for (int o = from; o < to; o++) {
                    out[o] = row(kind, x, o * n, n);
                }
            });
        } else if (l.contiguous) {
            int inner = l.inner;
            ctx.parallelFor(l.outer, FloatData.chunk((long) n * inner), (from, to) -> {
                double[] acc = new double[inner];
                for (int a = from; a < to; a++) {
                    block(kind, x, a * n * inner, n, inner, acc, out, a * inner);
                }
            });
        } else {
            int[] kept = l.keptOffsets();
            int[] red = l.reducedOffsets();
            ctx.parallelFor(l.outCount, FloatData.chunk(n), (from, to) -> {
                float[] tmp = new float[n];
                for (int o = from; o < to; o++) {
                    int base = kept[o];
                    for (int r = 0; r < n; r++) {
                        tmp[r] = x[base + red[r]];
                    }
                    out[o] = row(kind, tmp, 0, n);
                }
            });
        }
        return out;
    }

    /**
     * Reduces {@code n > 0} consecutive elements.
     *
     * @param kind the reduction
     * @param x the array
     * @param off the first element
     * @param n the count
     * @return the result
     */
    static float row(ReduceKind kind, float[] x, int off, int n) {
        switch (kind) {
            case SUM: return (float) sum(x, off, n);
            case MEAN: return (float) (sum(x, off, n) / n);
            case SUM_SQUARE: return (float) sumSquares(x, off, n);
            case L1: return (float) sumAbs(x, off, n);
            case L2: return (float) Math.sqrt(sumSquares(x, off, n));
            case LOG_SUM: return (float) Math.log(sum(x, off, n));
            case LOG_SUM_EXP: return (float) logSumExp(x, off, n);
            case MAX: return max(x, off, n);
            case MIN: return min(x, off, n);
            default: return (float) prod(x, off, n);
        }
    }

    /**
     * Sums consecutive elements in double precision.
     *
     * @param x the array
     * @param off the first element
     * @param n the count
     * @return the sum
     */
    public static double sum(float[] x, int off, int n) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int end = off + n;
        int i = off;
        for (; i + 3 < end; i += 4) {
            s0 += x[i];
            s1 += x[i + 1];
            s2 += x[i + 2];
            s3 += x[i + 3];
        }
        for (; i < end; i++) {
            s0 += x[i];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /**
     * Sums the squares of consecutive elements in double precision.
     *
     * @param x the array
     * @param off the first element
     * @param n the count
     * @return the sum of squares
     */
    public static double sumSquares(float[] x, int off, int n) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int end = off + n;
        int i = off;
        for (; i + 3 < end; i += 4) {
            double a = x[i];
            double b = x[i + 1];
            double c = x[i + 2];
            double d = x[i + 3];
            s0 += a * a;
            s1 += b * b;
            s2 += c * c;
            s3 += d * d;
        }
        for (; i < end; i++) {
            double a = x[i];
            s0 += a * a;
        }
        return (s0 + s1) + (s2 + s3);
    }

    private static double sumAbs(float[] x, int off, int n) {
        double s = 0;
        for (int i = off, end = off + n; i < end; i++) {
            s += Math.abs(x[i]);
        }
        return s;
    }

    /**
     * Finds the largest of consecutive elements (NaN if any is NaN).
     *
     * @param x the array
     * @param off the first element
     * @param n the count, at least 1
     * @return the maximum
     */
    public static float max(float[] x, int off, int n) {
        float m = x[off];
        for (int i = off + 1, end = off + n; i < end; i++) {
            m = Math.max(m, x[i]);
        }
        return m;
    }

    private static float min(float[] x, int off, int n) {
        float m = x[off];
        for (int i = off + 1, end = off + n; i < end; i++) {
            m = Math.min(m, x[i]);
        }
        return m;
    }

    private static double prod(float[] x, int off, int n) {
        double p = 1;
        for (int i = off, end = off + n; i < end; i++) {
            p *= x[i];
        }
        return p;
    }

    private static double logSumExp(float[] x, int off, int n) {
        double m = max(x, off, n);
        if (Double.isInfinite(m) || Double.isNaN(m)) {
            return m;
        }
        double s = 0;
        for (int i = off, end = off + n; i < end; i++) {
            s += Math.exp(x[i] - m);
        }
        return m + Math.log(s);
    }

    /** Reduces the middle axis of an {@code n x inner} block starting at {@code off} into {@code inner} outputs. */
    private static void block(ReduceKind kind, float[] x, int off, int n, int inner, double[] acc, float[] out,
            int outOff) {
        switch (kind) {
            case MAX:
            case MIN: {
                boolean isMax = kind == ReduceKind.MAX;
                System.arraycopy(x, off, out, outOff, inner);
                for (int r = 1; r < n; r++) {
                    int o = off + r * inner;
                    if (isMax) {
                        for (int j = 0; j < inner; j++) {
                            out[outOff + j] = Math.max(out[outOff + j], x[o + j]);
                        }
                    } else {
                        for (int j = 0; j < inner; j++) {
                            out[outOff + j] = Math.min(out[outOff + j], x[o + j]);
                        }
                    }
                }
                return;
            }
            case LOG_SUM_EXP: {
                // the maxima go to out first, then the sums of exponentials to acc
                block(ReduceKind.MAX, x, off, n, inner, acc, out, outOff);
                Arrays.fill(acc, 0);
                for (int r = 0; r < n; r++) {
                    int o = off + r * inner;
                    for (int j = 0; j < inner; j++) {
                        acc[j] += Math.exp(x[o + j] - (double) out[outOff + j]);
                    }
                }
                for (int j = 0; j < inner; j++) {
                    float m = out[outOff + j];
                    out[outOff + j] = Float.isInfinite(m) || Float.isNaN(m) ? m : (float) (m + Math.log(acc[j]));
                }
                return;
            }
            default:
                break;
        }
        Arrays.fill(acc, kind == ReduceKind.PROD ? 1 : 0);
        for (int r = 0; r < n; r++) {
            int o = off + r * inner;
            switch (kind) {
                case SUM_SQUARE:
                case L2:
                    for (int j = 0; j < inner; j++) {
                        double v = x[o + j];
                        acc[j] += v * v;
                    }
                    break;
                case L1:
                    for (int j = 0; j < inner; j++) {
                        acc[j] += Math.abs(x[o + j]);
                    }
                    break;
                case PROD:
                    for (int j = 0; j < inner; j++) {
                        acc[j] *= x[o + j];
                    }
                    break;
                default:
                    for (int j = 0; j < inner; j++) {
                        acc[j] += x[o + j];
                    }
                    break;
            }
        }
        for (int j = 0; j < inner; j++) {
            double v = acc[j];
            switch (kind) {
                case MEAN: v /= n; break;
                case L2: v = Math.sqrt(v); break;
                case LOG_SUM: v = Math.log(v); break;
                default: break;
            }
            out[outOff + j] = (float) v;
        }
    }
}
