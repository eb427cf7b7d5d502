package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;

/**
 * CenterCropPad (opset 18): brings each listed axis (all axes when {@code axes} is absent) to the size in the
 * {@code shape} input, cropping or zero-padding evenly around the centre (the extra element of an odd difference
 * goes to the end). Any element type.
 */
final class CenterCropPadKernel {
    private CenterCropPadKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        long[] axesAttr = node.intsAttr("axes", null);
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] target = Shapes.longs(in[1], "shape");
            long[] xs = x.shape();
            int rank = xs.length;
            int[] axes = new int[axesAttr == null ? rank : axesAttr.length];
            for (int i = 0; i < axes.length; i++) {
                axes[i] = axesAttr == null ? i : Shapes.axis(axesAttr[i], rank, "axes");
            }
            if (target.length != axes.length) {
                throw new InvalidArgumentException("input 'shape' has " + target.length + " sizes for "
                        + axes.length + " axes");
            }
            long[] os = xs.clone();
            long[] srcStart = new long[rank];
            long[] dstStart = new long[rank];
            long[] extent = xs.clone();
            for (int i = 0; i < axes.length; i++) {
                int a = axes[i];
                long t = target[i];
                if (t < 0) {
                    throw new InvalidArgumentException("input 'shape' has a negative size " + t);
                }
                os[a] = t;
                if (t < xs[a]) {
                    srcStart[a] = (xs[a] - t) / 2;
                    extent[a] = t;
                } else {
                    dstStart[a] = (t - xs[a]) / 2;
                }
            }
            int total = Tensor.checkedElementCount(os);
            Object out = ElementArrays.allocate(x.type(), total);
            int[] inStr = Shapes.strides(xs);
            int[] outStr = Shapes.strides(os);
            int inner = rank == 0 ? 1 : (int) extent[rank - 1];
            int rows = rank == 0 ? 1 : Shapes.product(extent, 0, rank - 1);
            long[] idx = new long[Math.max(rank - 1, 0)];
            for (int r = 0; r < rows && inner > 0; r++) {
                int src = 0;
                int dst = 0;
                for (int d = 0; d < rank; d++) {
                    long i = d < rank - 1 ? idx[d] : 0;
                    src += (int) ((srcStart[d] + i) * inStr[d]);
                    dst += (int) ((dstStart[d] + i) * outStr[d]);
                }
                System.arraycopy(x.data(), src, out, dst, inner);
                for (int d = rank - 2; d >= 0; d--) {
                    if (++idx[d] < extent[d]) {
                        break;
                    }
                    idx[d] = 0;
                }
            }
            return new Tensor[] {Tensor.of(x.type(), os, out)};
        };
    }
}
