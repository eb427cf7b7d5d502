package io.ortex.ep.cpu.fusion;

import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.List;

/**
 * The exact GELU as exporters write it out: {@code 0.5 x (1 + erf(x / sqrt 2))} in one of two orders,
 * <pre>
 *   Div(x, sqrt 2) | Mul(x, 1/sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5)
 *   Div(x, sqrt 2) | Mul(x, 1/sqrt 2) -> Erf -> Add(1) -> Mul(Mul(x, 0.5), .)
 * </pre>
 * with every intermediate read once and {@code x} read only by the pattern.
 *
 * @param nodes the pattern's nodes, in order
 * @param output the GELU's result
 */
record GeluPattern(List<NodeView> nodes, ValueView output) {
    private static final double SQRT2 = Math.sqrt(2);
    private static final double TOLERANCE = 1e-4;

    /**
     * Matches the pattern on {@code x}.
     *
     * @param x the GELU's input
     * @return the pattern, or {@code null}
     */
    static GeluPattern on(ValueView x) {
        if (x == null || x.isGraphOutput() || x.consumers().size() != 2) {
            return null;
        }
        NodeView scale = null;
        NodeView other = null;
        for (NodeView c : x.consumers()) {
            if (scale == null && isInvSqrt2(c, x)) {
                scale = c;
            } else {
                other = c;
            }
        }
        if (scale == null || other == null) {
            return null;
        }
        NodeView erf = Pattern.soleConsumer(Pattern.output(scale));
        if (!Pattern.is(erf, "Erf")) {
            return null;
        }
        NodeView plusOne = Pattern.soleConsumer(Pattern.output(erf));
        if (!Pattern.is(plusOne, "Add") || !Pattern.scalarIs(Pattern.other(plusOne, Pattern.output(erf)), 1, 0)) {
            return null;
        }
        ValueView onePlus = Pattern.output(plusOne);
        NodeView product = Pattern.soleConsumer(onePlus);
        if (!Pattern.is(product, "Mul")) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(scale, erf, plusOne));
        if (other == product) {
            // x * (1 + erf) then * 0.5
            NodeView half = Pattern.soleConsumer(Pattern.output(product));
            if (!Pattern.is(half, "Mul") || !Pattern.scalarIs(Pattern.other(half, Pattern.output(product)), 0.5, 0)) {
                return null;
            }
            nodes.add(product);
            nodes.add(half);
            return new GeluPattern(nodes, Pattern.output(half));
        }
        // (x * 0.5) * (1 + erf)
        if (!Pattern.is(other, "Mul") || !Pattern.scalarIs(Pattern.other(other, x), 0.5, 0)
                || Pattern.soleConsumer(Pattern.output(other)) != product) {
            return null;
        }
        nodes.add(other);
        nodes.add(product);
        return new GeluPattern(nodes, Pattern.output(product));
    }

    /** Whether a node is {@code x / sqrt 2} or {@code x * (1 / sqrt 2)}. */
    private static boolean isInvSqrt2(NodeView n, ValueView x) {
        if (Pattern.is(n, "Div") && n.inputs().size() == 2 && n.inputs().get(0) != null
                && n.inputs().get(0).name().equals(x.name())) {
            return Pattern.scalarIs(n.inputs().get(1), SQRT2, TOLERANCE);
        }
        if (Pattern.is(n, "Mul")) {
            return Pattern.scalarIs(Pattern.other(n, x), 1 / SQRT2, TOLERANCE);
        }
        return false;
    }
}
