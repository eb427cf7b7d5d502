package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.linalg.Activation;

/** A GELU written out ({@link GeluPattern}) that no MatMul fusion took: one element-wise pass. */
final class GeluFusion {
    /** The fusion's name. */
    static final String NAME = "Gelu";

    private GeluFusion() {
    }

    /**
     * Matches at the node that scales the GELU's input.
     *
     * @param scale the anchor: {@code Div(x, sqrt 2)} or {@code Mul(x, 1/sqrt 2)}
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView scale) {
        if (!(Pattern.is(scale, "Div") || Pattern.is(scale, "Mul")) || scale.inputs().isEmpty()) {
            return null;
        }
        for (ValueView x : scale.inputs()) {
            GeluPattern gelu = GeluPattern.on(x);
            if (gelu != null && gelu.nodes().get(0) == scale && Pattern.mayBeFloat(x)) {
                String name = x.name();
                return new FusionMatch(NAME, gelu.nodes(), (inputNames, outputNames) -> {
                    int xi = inputNames.indexOf(name);
                    if (xi < 0) {
                        return (in, ctx) -> null;
                    }
                    return (in, ctx) -> {
                        Tensor t = in[xi];
                        if (t.type() != ElementType.FLOAT || outputNames.size() != 1) {
                            return null;
                        }
                        Tensor y = ctx.allocateUninitialized(ElementType.FLOAT, t.shape());
                        System.arraycopy(t.floats(), 0, y.floats(), 0, t.size());
                        ctx.parallelFor(t.size(), 8192, (from, to) -> Activation.GELU.apply(y.floats(), from,
                                to - from));
                        return new Tensor[] {y};
                    };
                }, true);
            }
        }
        return null;
    }
}
