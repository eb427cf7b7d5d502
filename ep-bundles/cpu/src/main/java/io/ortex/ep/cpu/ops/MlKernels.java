package io.ortex.ep.cpu.ops;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;

/** The small kernels of {@link MlOps}: ArrayFeatureExtractor and Binarizer. */
final class MlKernels {
    private MlKernels() {
    }

    /**
     * ArrayFeatureExtractor: selects the elements at the int64 indices {@code Y} along the last axis of {@code X}
     * (a 1-D {@code X} gives a {@code [1, len(Y)]} result, as ONNX Runtime does).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel arrayFeatureExtractor(NodeView node) {
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] idx = Shapes.longs(in[1], "Y");
            long[] xs = x.shape();
            if (xs.length == 0) {
                throw new InvalidArgumentException("input X must have at least one dimension");
            }
            int last = (int) xs[xs.length - 1];
            int rows = Shapes.product(xs, 0, xs.length - 1);
            long[] os = xs.length == 1 ? new long[] {1, idx.length} : xs.clone();
            os[os.length - 1] = idx.length;
            int[] map = new int[rows * idx.length];
            for (int k = 0; k < idx.length; k++) {
                if (idx[k] < 0 || idx[k] >= last) {
                    throw new InvalidArgumentException("index " + idx[k] + " in Y is outside [0, " + last + ")");
                }
            }
            for (int r = 0; r < rows; r++) {
                for (int k = 0; k < idx.length; k++) {
                    map[r * idx.length + k] = r * last + (int) idx[k];
                }
            }
            Object out = ElementArrays.allocate(x.type(), map.length);
            ElementArrays.gather(x.data(), map, out);
            return new Tensor[] {Tensor.of(x.type(), os, out)};
        };
    }

    /**
     * Binarizer: 1 where the element is greater than {@code threshold} (default 0), else 0, in the input's type.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel binarizer(NodeView node) {
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
