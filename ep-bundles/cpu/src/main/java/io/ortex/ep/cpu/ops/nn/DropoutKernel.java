package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.Arrays;

/**
 * Dropout at inference: the output is the input, and the optional mask keeps every element. Random dropping
 * (training) is not implemented.
 */
final class DropoutKernel {
    private DropoutKernel() {
    }

    /**
     * Creates the kernel for a Dropout node at inference: the output is the input and the optional mask is all
     * true (all ones of the input's type before opset 10). From opset 12, {@code training_mode} = true is only
     * accepted with a ratio of 0, since random dropping is not implemented.
     *
     * @param node the node
     * @param boolMask whether the mask is bool (opset 10 on) rather than of the input's type
     * @param trainingModeInput whether the ratio and {@code training_mode} are inputs (opset 12 on) rather than
     *     the ratio being an attribute
     * @return the kernel
     */
    static CpuKernel create(NodeView node, boolean boolMask, boolean trainingModeInput) {
        boolean wantMask = node.outputs().size() > 1 && node.outputs().get(1) != null;
        float attrRatio = node.floatAttr("ratio", 0.5f);
        return (in, ctx) -> {
            Tensor x = in[0];
            if (trainingModeInput && in.length > 2 && in[2] != null && in[2].booleans().length > 0
                    && in[2].booleans()[0]) {
                double ratio = in.length > 1 && in[1] != null ? in[1].getDouble(0) : 0.5;
                if (ratio != 0) {
                    throw new NotImplementedException("Dropout with input 'training_mode' = true and ratio "
                            + ratio + " (random dropping) is not implemented");
                }
            } else if (!trainingModeInput && attrRatio < 0) {
                throw new InvalidArgumentException("Dropout attribute 'ratio' must be in [0, 1), got " + attrRatio);
            }
            if (!wantMask) {
                return new Tensor[] {x};
            }
            Tensor mask;
            if (boolMask) {
                boolean[] m = new boolean[x.size()];
                Arrays.fill(m, true);
                mask = Tensor.ofBooleans(m, x.shape());
            } else {
                double[] ones = new double[x.size()];
                Arrays.fill(ones, 1);
                mask = Values.fromDoubles(x.type(), x.shape(), ones);
            }
            return new Tensor[] {x, mask};
        };
    }
}
