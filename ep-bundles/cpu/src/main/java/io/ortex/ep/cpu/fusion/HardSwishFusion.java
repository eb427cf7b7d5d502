package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.linalg.Activation;

/** A HardSwish written out ({@link HardSwishPattern}) that no convolution took: one element-wise pass. */
final class HardSwishFusion {
    /** The fusion's name. */
    static final String NAME = "HardSwish";

    private HardSwishFusion() {
    }

    /**
     * Matches at the pattern's Add.
     *
     * @param add the anchor: {@code Add(x, 3)}
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView add) {
        if (!Pattern.is(add, "Add") || add.inputs().size() != 2) {
            return null;
        }
        for (ValueView x : add.inputs()) {
            HardSwishPattern hs = x == null ? null : HardSwishPattern.on(x);
            if (hs != null && hs.nodes().get(0) == add && Pattern.mayBeFloat(x)) {
                String name = x.name();
                return new FusionMatch(NAME, hs.nodes(), (inputNames, outputNames) -> {
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
                        float[] src = t.floats();
                        float[] dst = y.floats();
                        ctx.parallelFor(t.size(), 8192, (from, to) -> {
                            System.arraycopy(src, from, dst, from, to - from);
                            Activation.HARD_SWISH.apply(dst, from, to - from);
                        });
                        return new Tensor[] {y};
                    };
                }, true);
            }
        }
        return null;
    }
}
