package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.linalg.Elementwise;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * LayerNormalization over the last axis as exporters write it out:
 * <pre>
 *   mean = ReduceMean(x); d = Sub(x, mean); var = ReduceMean(Pow(d, 2)); n = Div(d, Sqrt(Add(var, eps)))
 *   y = Add(Mul(n, gamma), beta)       (the Mul and the Add optional)
 * </pre>
 * with both ReduceMeans over the last axis only, keeping it, and every intermediate read only inside the pattern.
 * When {@code x} is the sum of two activations read by nothing else (a transformer's residual connection,
 * {@code x = Add(a, b)}), the Add joins the kernel, as in ONNX Runtime's SkipLayerNormalization: each row is summed
 * and normalized while it is in the cache, and the sum is never stored. An Add with a constant operand (a bias) is
 * left to the fusions of the node that produces its other operand.
 */
final class LayerNormFusion {
    /** The fusion's name. */
    static final String NAME = "LayerNorm";

    private LayerNormFusion() {
    }

    /**
     * Matches at the first ReduceMean.
     *
     * @param mean the anchor
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView mean) {
        if (!isLastAxisMean(mean)) {
            return null;
        }
        ValueView x = mean.inputs().get(0);
        NodeView sub = Pattern.soleConsumer(Pattern.output(mean));
        if (!Pattern.is(sub, "Sub") || sub.inputs().size() != 2 || !sub.inputs().get(0).name().equals(x.name())
                || !Pattern.mayBeFloat(x)) {
            return null;
        }
        ValueView d = Pattern.output(sub);
        if (d == null || d.isGraphOutput() || d.consumers().size() != 2) {
            return null;
        }
        NodeView pow = null;
        NodeView div = null;
        for (NodeView c : d.consumers()) {
            if (Pattern.is(c, "Pow") && c.inputs().get(0).name().equals(d.name())
                    && Pattern.scalarIs(c.inputs().get(1), 2, 0)) {
                pow = c;
            } else if (Pattern.is(c, "Div") && c.inputs().get(0).name().equals(d.name())) {
                div = c;
            }
        }
        if (pow == null || div == null) {
            return null;
        }
        NodeView mean2 = Pattern.soleConsumer(Pattern.output(pow));
        if (!isLastAxisMean(mean2)) {
            return null;
        }
        NodeView addEps = Pattern.soleConsumer(Pattern.output(mean2));
        if (!Pattern.is(addEps, "Add")) {
            return null;
        }
        Float eps = Pattern.scalar(Pattern.other(addEps, Pattern.output(mean2))).orElse(null);
        NodeView sqrt = Pattern.soleConsumer(Pattern.output(addEps));
        if (eps == null || !Pattern.is(sqrt, "Sqrt") || Pattern.soleConsumer(Pattern.output(sqrt)) != div
                || !div.inputs().get(1).name().equals(Pattern.output(sqrt).name())) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(mean, sub, pow, mean2, addEps, sqrt, div));
        NodeView residual = residualAdd(x);
        if (residual != null) {
            nodes.add(0, residual);
        }
        ValueView out = Pattern.output(div);
        float[] gamma = null;
        float[] beta = null;
        NodeView mul = Pattern.soleConsumer(out);
        if (Pattern.is(mul, "Mul")) {
            Tensor g = Pattern.constantFloats(Pattern.other(mul, out)).orElse(null);
            if (g != null && g.rank() == 1) {
                gamma = g.floats();
                nodes.add(mul);
                out = Pattern.output(mul);
                NodeView add = Pattern.soleConsumer(out);
                if (Pattern.is(add, "Add")) {
                    Tensor b = Pattern.constantFloats(Pattern.other(add, out)).orElse(null);
                    if (b != null && b.rank() == 1 && b.size() == g.size()) {
                        beta = b.floats();
                        nodes.add(add);
                        out = Pattern.output(add);
                    }
                }
            }
        }
        float[] scale = gamma;
        float[] shift = beta;
        float epsilon = eps;
        // the rows to normalize, or the two the residual Add sums into them
        String xName = residual == null ? x.name() : residual.inputs().get(0).name();
        String skipName = residual == null ? null : residual.inputs().get(1).name();
        return new FusionMatch(NAME, nodes, (inputNames, outputNames) -> {
            int xi = inputNames.indexOf(xName);
            int si = skipName == null ? -1 : inputNames.indexOf(skipName);
            if (xi < 0 || skipName != null && si < 0) {
                return (in, ctx) -> null;
            }
            return (in, ctx) -> {
                Tensor t = in[xi];
                Tensor skip = si < 0 ? null : in[si];
                if (t.type() != ElementType.FLOAT || t.rank() < 1 || outputNames.size() != 1
                        || skip != null && (skip.type() != ElementType.FLOAT
                        || !Arrays.equals(skip.shape(), t.shape()))) {
                    return null;
                }
                int cols = (int) t.dim(t.rank() - 1);
                if (cols == 0 || scale != null && scale.length != cols || t.rank() == 1 && scale != null) {
                    return null;
                }
                int rows = t.size() / cols;
                Tensor y = ctx.allocateUninitialized(ElementType.FLOAT, t.shape());
                float[] src = t.floats();
                float[] added = skip == null ? null : skip.floats();
                float[] dst = y.floats();
                ctx.parallelFor(rows, Math.max(1, 4096 / cols), (from, to) -> {
                    for (int r = from; r < to; r++) {
                        int o = r * cols;
                        if (added == null) {
                            Elementwise.layerNorm(src, o, cols, scale, shift, epsilon, dst, o);
                        } else {
                            Elementwise.binary(Elementwise.Binary.ADD, src, o, added, o, dst, o, cols);
                            Elementwise.layerNorm(dst, o, cols, scale, shift, epsilon, dst, o);
                        }
                    }
                });
                return new Tensor[] {y};
            };
        }, true);
    }

    /**
     * The Add that makes {@code x} from two activations, when nothing but the normalization reads {@code x}; else
     * {@code null}.
     */
    private static NodeView residualAdd(ValueView x) {
        NodeView add = Pattern.producer(x);
        if (!Pattern.is(add, "Add") || add.inputs().size() != 2 || x.isGraphOutput() || x.consumers().size() != 2) {
            return null;
        }
        for (ValueView operand : add.inputs()) {
            if (operand == null || operand.isInitializer() || !Pattern.mayBeFloat(operand)) {
                return null;
            }
        }
        return add;
    }

    /** A ReduceMean over the last axis only, keeping it (axes as attribute, or as a constant input from opset 18). */
    private static boolean isLastAxisMean(NodeView n) {
        if (!Pattern.is(n, "ReduceMean") || n.inputs().isEmpty() || n.inputs().get(0) == null
                || n.intAttr("keepdims", 1) != 1) {
            return false;
        }
        long[] axes = n.intsAttr("axes", null);
        if (axes == null && n.inputs().size() > 1 && n.inputs().get(1) != null) {
            Tensor t = n.inputs().get(1).isConstantInitializer() ? n.inputs().get(1).initializer().orElse(null)
                    : null;
            if (t == null || t.type() != ElementType.INT64) {
                return false;
            }
            axes = t.longs();
        }
        if (axes == null || axes.length != 1) {
            return false;
        }
        if (axes[0] == -1) {
            return true;
        }
        return n.inputs().get(0).typeInfo().map(i -> i.dims() != null && axes0(n) == i.dims().length - 1)
                .orElse(false);
    }

    private static long axes0(NodeView n) {
        long[] axes = n.intsAttr("axes", null);
        if (axes != null) {
            return axes[0];
        }
        return n.inputs().get(1).initializer().map(t -> t.longs()[0]).orElse(-2L);
    }
}
