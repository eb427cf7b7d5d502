package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Arrays;

/**
 * GlobalAveragePool, GlobalMaxPool and GlobalLpPool: one value per (image, channel) over all spatial axes of an
 * input of rank 3 or more; the output keeps the rank with spatial axes of size 1.
 */
final class GlobalPoolKernels {
    private GlobalPoolKernels() {
    }

    static CpuKernel create(NodeView node, PoolKernels.Kind kind) {
        double p = kind == PoolKernels.Kind.LP ? node.intAttr("p", 2) : 0;
        String op = node.opType();
        return (in, ctx) -> new Tensor[] {pool(op, in[0], kind, p, ctx)};
    }

    private static Tensor pool(String op, Tensor x, PoolKernels.Kind kind, double p, KernelContext ctx) {
        if (x.rank() < 3) {
            throw new InvalidArgumentException(op + " input X must have rank 3 or more, got ["
                    + Tensor.shapeString(x.shape()) + "]");
        }
        ElementType type = x.type();
        if (!type.isFloatingPoint()) {
            throw new NotImplementedException(op + " is not implemented for type " + type);
        }
        int planes = (int) x.dim(0) * (int) x.dim(1);
        int size = WorkingArrays.product(x.shape(), 2, x.rank());
        long[] outShape = new long[x.rank()];
        Arrays.fill(outShape, 1);
        outShape[0] = x.dim(0);
        outShape[1] = x.dim(1);
        double[] y = new double[planes];
        float[] xf = type == ElementType.FLOAT ? x.floats() : null;
        ctx.parallelFor(planes, 16, (from, to) -> {
            for (int pl = from; pl < to; pl++) {
                int base = pl * size;
                double acc = kind == PoolKernels.Kind.MAX ? Double.NEGATIVE_INFINITY : 0;
                for (int i = 0; i < size; i++) {
                    double v = xf != null ? xf[base + i] : x.getDouble(base + i);
                    switch (kind) {
                        case MAX: acc = Math.max(acc, v); break;
                        case AVERAGE: acc += v; break;
                        default: acc += Math.pow(Math.abs(v), p);
                    }
                }
                y[pl] = kind == PoolKernels.Kind.AVERAGE ? acc / size
                        : kind == PoolKernels.Kind.LP ? Math.pow(acc, 1 / p) : acc;
            }
        });
        return Values.fromDoubles(type, outShape, y);
    }
}
