package io.ortex.ep.cpu.ops.ml;

import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;

/** Binarizer (ai.onnx.ml): 1 where an element is above the threshold, else 0. */
final class BinarizerKernel {
    private BinarizerKernel() {
    }

    /**
     * Binarizer: 1 where the element is greater than {@code threshold} (default 0), else 0, in the input's type.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        double threshold = node.floatAttr("threshold", 0f);
        return (in, ctx) -> {
            Tensor x = in[0];
            if (!x.type().isFloatingPoint() && !x.type().isInteger()) {
                throw new NotImplementedException("Binarizer input type " + x.type() + " is not supported");
            }
            double[] v = Values.toDoubles(x);
            double[] out = new double[v.length];
            for (int i = 0; i < v.length; i++) {
                out[i] = v[i] > threshold ? 1 : 0;
            }
            return new Tensor[] {Values.fromDoubles(x.type(), x.shape(), out)};
        };
    }
}
