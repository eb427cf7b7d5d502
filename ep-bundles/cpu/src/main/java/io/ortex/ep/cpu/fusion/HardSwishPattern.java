package io.ortex.ep.cpu.fusion;

import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.List;

/**
 * HardSwish as exporters write it out (PaddlePaddle's, among others): {@code x * clip(x + 3, 0, 6) / 6},
 * <pre>
 *   Add(x, 3) -> Clip(0, 6) -> Mul(x, .) -> Div(6) | Mul(1/6)
 * </pre>
 * with every intermediate read once. Stateless.
 *
 * @param nodes the pattern's nodes, the Add first
 * @param output the value the pattern computes
 */
record HardSwishPattern(List<NodeView> nodes, ValueView output) {
    /**
     * Finds the pattern on a value.
     *
     * @param x the value the HardSwish applies to
     * @return the pattern, or {@code null}
     */
    static HardSwishPattern on(ValueView x) {
        if (x == null) {
            return null;
        }
        for (NodeView add : x.consumers()) {
            if (!Pattern.is(add, "Add") || !Pattern.scalarIs(Pattern.other(add, x), 3, 0)) {
                continue;
            }
            NodeView clip = Pattern.soleConsumer(Pattern.output(add));
            if (!isClip(clip, 0, 6) || !clip.inputs().get(0).name().equals(add.outputs().get(0).name())) {
                continue;
            }
            ValueView clipped = Pattern.output(clip);
            NodeView mul = Pattern.soleConsumer(clipped);
            if (!Pattern.is(mul, "Mul") || Pattern.other(mul, clipped) == null
                    || !Pattern.other(mul, clipped).name().equals(x.name())) {
                continue;
            }
            ValueView product = Pattern.output(mul);
            NodeView div = Pattern.soleConsumer(product);
            boolean bySix = Pattern.is(div, "Div") && div.inputs().size() == 2
                    && div.inputs().get(0).name().equals(product.name()) && Pattern.scalarIs(div.inputs().get(1), 6, 0);
            boolean bySixth = Pattern.is(div, "Mul") && Pattern.scalarIs(Pattern.other(div, product), 1.0 / 6, 1e-7);
            if ((bySix || bySixth) && Pattern.output(div) != null) {
                return new HardSwishPattern(List.of(add, clip, mul, div), Pattern.output(div));
            }
        }
        return null;
    }

    /** Whether a node is a Clip to the constant bounds {@code [lo, hi]}. */
    private static boolean isClip(NodeView clip, float lo, float hi) {
        if (!Pattern.is(clip, "Clip") || clip.inputs().isEmpty() || clip.inputs().get(0) == null
                || Pattern.output(clip) == null) {
            return false;
        }
        float[] bounds = ChannelChain.clipBounds(clip);
        return bounds != null && bounds[0] == lo && bounds[1] == hi;
    }
}
