package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.ops.nn.ChannelOps;
import io.ortex.ep.cpu.ops.nn.FloatConvTranspose;
import io.ortex.ep.cpu.ops.nn.TransposeWindow;
import java.util.ArrayList;
import java.util.List;

/**
 * A ConvTranspose with constant float32 weights (and bias) followed by channel-wise nodes ({@link ChannelChain}): the
 * bias Add, BatchNormalization and activation of upsampling heads folded into one transposed convolution
 * ({@link FloatConvTranspose}), the affine maps before the first activation into its weights and bias at compile
 * time. The maps act on the output, so folding them is exact whatever the padding.
 */
final class ConvTransposeFusion {
    /** The fusion's name. */
    static final String NAME = "ConvTranspose";

    private ConvTransposeFusion() {
    }

    /**
     * Matches at a ConvTranspose node.
     *
     * @param node the anchor
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView node) {
        if (!Pattern.is(node, "ConvTranspose") || node.inputs().size() < 2 || node.inputs().get(0) == null
                || Pattern.output(node) == null || !Pattern.mayBeFloat(node.inputs().get(0))) {
            return null;
        }
        Tensor w = Pattern.constantFloats(node.inputs().get(1)).orElse(null);
        long group = node.intAttr("group", 1);
        if (w == null || w.rank() < 3 || group < 1 || w.dim(1) * group > Integer.MAX_VALUE) {
            return null;
        }
        int channels = (int) (w.dim(1) * group);
        Tensor b = null;
        if (node.inputs().size() > 2 && node.inputs().get(2) != null) {
            b = Pattern.constantFloats(node.inputs().get(2)).orElse(null);
            if (b == null || b.size() != channels) {
                return null;
            }
        }
        ChannelChain chain = ChannelChain.after(Pattern.output(node), channels, w.rank());
        if (chain.nodes().isEmpty()) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(node));
        nodes.addAll(chain.nodes());
        String xName = node.inputs().get(0).name();
        float[] bias = b == null ? null : b.floats();
        return new FusionMatch(NAME, nodes, (inputNames, outputNames) -> {
            FloatConvTranspose prepared = FloatConvTranspose.create(TransposeWindow.Attrs.of(node), w.shape(),
                    w.floats(), bias, ChannelOps.of(chain.steps()));
            int xi = inputNames.indexOf(xName);
            if (xi < 0) {
                return (in, ctx) -> null;
            }
            return (in, ctx) -> {
                Tensor x = in[xi];
                return x.type() != ElementType.FLOAT || outputNames.size() != 1 ? null
                        : new Tensor[] {prepared.run(x, ctx)};
            };
        }, true);
    }
}
