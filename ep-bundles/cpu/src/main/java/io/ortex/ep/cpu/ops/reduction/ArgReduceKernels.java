package io.ortex.ep.cpu.ops.reduction;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * ArgMax and ArgMin: the int64 index of the largest (smallest) element along {@code axis} (default 0), keeping the
 * axis as size 1 unless {@code keepdims=0}; ties go to the first index, or the last with {@code select_last_index=1}
 * (opset 12 on). Float32 is compared as is, other floating types as double, integers as long.
 */
final class ArgReduceKernels {
    private ArgReduceKernels() {
    }

    /**
     * Gives the factory for ArgMax or ArgMin.
     *
     * @param isMax true for ArgMax
     * @return the factory
     */
    static KernelFactory factory(boolean isMax) {
        return node -> {
            long axisAttr = node.intAttr("axis", 0);
            boolean keepDims = node.intAttr("keepdims", 1) != 0;
            boolean last = node.intAttr("select_last_index", 0) != 0;
            String op = node.opType();
            return (in, ctx) -> {
                Tensor x = in[0];
                long[] shape = x.shape();
                int rank = shape.length;
                int axis = ReduceLayout.normalizeAxis(axisAttr, Math.max(rank, 1), op + " attribute 'axis'");
                ReduceLayout l = ReduceLayout.plan(shape, rank == 0 ? new long[0] : new long[] {axis}, keepDims,
                        rank == 0, op);
                int n = rank == 0 ? 1 : (int) shape[axis];
                if (n == 0 && l.outCount > 0) {
                    throw new InvalidArgumentException(op + " cannot reduce the empty axis " + axis);
                }
                long[] out = new long[l.outCount];
                run(x, l.outCount, n, rank == 0 ? 1 : l.inner, isMax, last, out, ctx, op);
                return new Tensor[] {Tensor.ofLongs(out, l.outShape)};
            };
        };
    }

    private static void run(Tensor x, int count, int n, int inner, boolean isMax, boolean last, long[] out,
            KernelContext ctx, String op) {
        ElementType type = x.type();
        if (type == ElementType.STRING) {
            throw new NotImplementedException(op + " is not defined for string tensors");
        }
        // sign: compare sign * value, so one "greater" loop serves both ops
        if (type == ElementType.FLOAT) {
            float[] v = x.floats();
            float sign = isMax ? 1 : -1;
            ctx.parallelFor(count, FloatData.chunk(n), (from, to) -> {
                for (int o = from; o < to; o++) {
                    int base = (o / inner) * n * inner + o % inner;
                    int best = 0;
                    float bestV = sign * v[base];
                    for (int r = 1; r < n; r++) {
                        float e = sign * v[base + r * inner];
                        if (e > bestV || (last && e == bestV)) {
                            bestV = e;
                            best = r;
                        }
                    }
                    out[o] = best;
                }
            });
        } else if (type.isFloatingPoint()) {
            double[] v = Values.toDoubles(x);
            double sign = isMax ? 1 : -1;
            ctx.parallelFor(count, FloatData.chunk(n), (from, to) -> {
                for (int o = from; o < to; o++) {
                    int base = (o / inner) * n * inner + o % inner;
                    int best = 0;
                    double bestV = sign * v[base];
                    for (int r = 1; r < n; r++) {
                        double e = sign * v[base + r * inner];
                        if (e > bestV || (last && e == bestV)) {
                            bestV = e;
                            best = r;
                        }
                    }
                    out[o] = best;
                }
            });
        } else {
            long[] v = new long[x.size()];
            // flipping the sign bit makes uint64 order agree with signed comparison
            long flip = type == ElementType.UINT64 ? Long.MIN_VALUE : 0;
            for (int i = 0; i < v.length; i++) {
                v[i] = x.getLong(i) ^ flip;
            }
            ctx.parallelFor(count, FloatData.chunk(n), (from, to) -> {
                for (int o = from; o < to; o++) {
                    int base = (o / inner) * n * inner + o % inner;
                    int best = 0;
                    long bestV = v[base];
                    for (int r = 1; r < n; r++) {
                        long e = v[base + r * inner];
                        int c = Long.compare(e, bestV);
                        if (isMax ? c > 0 || (last && c == 0) : c < 0 || (last && c == 0)) {
                            bestV = e;
                            best = r;
                        }
                    }
                    out[o] = best;
                }
            });
        }
    }
}
