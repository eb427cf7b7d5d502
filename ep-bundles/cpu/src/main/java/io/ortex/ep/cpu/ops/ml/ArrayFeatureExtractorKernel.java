package io.ortex.ep.cpu.ops.ml;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;

/** ArrayFeatureExtractor (ai.onnx.ml): selects elements along the last axis by index. */
final class ArrayFeatureExtractorKernel {
    private ArrayFeatureExtractorKernel() {
    }

    /**
     * ArrayFeatureExtractor: selects the elements at the int64 indices {@code Y} along the last axis of {@code X}
     * (a 1-D {@code X} gives a {@code [1, len(Y)]} result, as ONNX Runtime does).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
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
}
