package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.ops.nn.ChannelOps;
import io.ortex.ep.cpu.ops.nn.FloatConv;
import io.ortex.ep.cpu.ops.nn.Window;
import java.util.ArrayList;
import java.util.List;

/**
 * A Conv with constant float32 weights (and bias) followed by channel-wise nodes ({@link ChannelChain}: a
 * BatchNormalization, the Mul and Add of a per-channel or scalar constant, activations, HardSwish written out): one
 * convolution ({@link FloatConv}) whose weights and bias absorb the affine maps before the first activation, at
 * compile time, and that applies the activation in its product's epilogue and what follows to each block of output
 * while it is in cache. The maps act on the output, so folding them is exact whatever the padding.
 */
final class ConvFusion {
    /** The fusion's name. */
    static final String NAME = "Conv";

    private ConvFusion() {
    }

    /**
     * Matches at a Conv node.
     *
     * @param conv the anchor
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView conv) {
        if (!Pattern.is(conv, "Conv") || conv.inputs().size() < 2 || conv.inputs().get(0) == null
                || Pattern.output(conv) == null || !Pattern.mayBeFloat(conv.inputs().get(0))) {
            return null;
        }
        ConstantWeight w = ConstantWeight.of(conv.inputs().get(1));
        if (w == null || w.rank() < 3) {
            return null;
        }
        Tensor b = null;
        if (conv.inputs().size() > 2 && conv.inputs().get(2) != null) {
            b = Pattern.constantFloats(conv.inputs().get(2)).orElse(null);
            if (b == null || b.size() != w.dim(0)) {
                return null;
            }
        }
        ChannelChain chain = ChannelChain.after(Pattern.output(conv), (int) w.dim(0), w.rank());
        if (chain.nodes().isEmpty()) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(conv));
        nodes.addAll(chain.nodes());
        String xName = conv.inputs().get(0).name();
        float[] bias = b == null ? null : b.floats();
        return new FusionMatch(NAME, nodes, (inputNames, outputNames) -> {
            Tensor weights = w.decode();
            int xi = inputNames.indexOf(xName);
            if (xi < 0 || weights == null) {
                return (in, ctx) -> null;
            }
            FloatConv prepared = FloatConv.create(Window.attrs(conv, false), (int) conv.intAttr("group", 1),
                    weights.shape(), weights.floats(), bias, ChannelOps.of(chain.steps()));
            return (in, ctx) -> {
                Tensor x = in[xi];
                return x.type() != ElementType.FLOAT || outputNames.size() != 1 ? null
                        : new Tensor[] {prepared.run(x, ctx)};
            };
        }, true);
    }
}
