package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;

/**
 * MaxUnpool: scatters the pooled values back to the flat positions given by MaxPool's Indices output, into zeros
 * of the shape implied by kernel_shape, strides and pads, or of the optional output_shape input.
 */
final class MaxUnpoolKernel {
    private MaxUnpoolKernel() {
    }

    static CpuKernel create(NodeView node) {
        Window.Attrs a = Window.attrs(node, true);
        return (in, ctx) -> {
            Tensor x = in[0];
            Tensor idx = in[1];
            Tensor shapeIn = in.length > 2 ? in[2] : null;
            int r = x.rank() - 2;
            if (r < 1 || a.kernel().length != r) {
                throw new InvalidArgumentException("MaxUnpool input X [" + Tensor.shapeString(x.shape())
                        + "] does not match kernel_shape of " + a.kernel().length + " axes");
            }
            if (idx.size() != x.size()) {
                throw new InvalidArgumentException("MaxUnpool input I must have the shape of X");
            }
            long[] shape;
            if (shapeIn != null) {
                shape = WorkingArrays.longs(shapeIn);
            } else {
                shape = x.shape().clone();
                for (int i = 0; i < r; i++) {
                    long s = a.strides() == null ? 1 : a.strides()[i];
                    long pads = a.pads() == null ? 0 : a.pads()[i] + a.pads()[i + r];
                    shape[i + 2] = (x.dim(i + 2) - 1) * s - pads + a.kernel()[i];
                }
            }
            double[] y = new double[Tensor.checkedElementCount(shape)];
            for (int i = 0; i < idx.size(); i++) {
                long p = idx.getLong(i);
                if (p < 0 || p >= y.length) {
                    throw new InvalidArgumentException("MaxUnpool index " + p + " is outside the output of "
                            + y.length + " elements");
                }
                y[(int) p] = x.getDouble(i);
            }
            return new Tensor[] {Values.fromDoubles(x.type(), shape, y)};
        };
    }
}
