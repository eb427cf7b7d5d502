package io.ortex.ep.cpu.ops.signal;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Shapes;

/**
 * HannWindow, HammingWindow and BlackmanWindow (opset 17): the generalized cosine window
 * {@code w[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N)} of {@code size} values, with {@code N = size} when
 * {@code periodic} (the default) and {@code size - 1} otherwise, in the {@code output_datatype} type.
 */
final class WindowKernels {
    private WindowKernels() {
    }

    /**
     * The Hann window's factory.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel hann(NodeView node) {
        return create(node, 0.5, 0.5, 0);
    }

    /**
     * The Hamming window's factory.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel hamming(NodeView node) {
        return create(node, 25.0 / 46, 21.0 / 46, 0);
    }

    /**
     * The Blackman window's factory.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel blackman(NodeView node) {
        return create(node, 0.42, 0.5, 0.08);
    }

    private static CpuKernel create(NodeView node, double a0, double a1, double a2) {
        boolean periodic = node.intAttr("periodic", 1) != 0;
        ElementType type = SignalValues.outputType(node);
        return (in, ctx) -> {
            long size = Shapes.scalar(in[0], "size");
            if (size < 0) {
                throw new InvalidArgumentException(node.opType() + " input 'size' must not be negative, not " + size);
            }
            double[] w = new double[Tensor.checkedElementCount(new long[] {size})];
            double period = periodic ? size : size - 1;
            for (int k = 0; k < w.length; k++) {
                double angle = 2 * Math.PI * k / period;
                w[k] = a0 - a1 * Math.cos(angle) + a2 * Math.cos(2 * angle);
            }
            if (size == 1 && !periodic) {
                w[0] = 1; // a one-point symmetric window has no period; numpy and torch give 1
            }
            return new Tensor[] {SignalValues.fromDoubles(type, new long[] {size}, w)};
        };
    }
}
