package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.linalg.Activation;
import io.ortex.ep.cpu.ops.nn.ChannelOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The channel-wise nodes exporters write after a convolution, found as a chain from its output: BatchNormalization
 * (inference), Mul, Add, Sub and Div by a constant that is one value or one per output channel, and the activations
 * Relu, LeakyRelu, Clip with constant bounds, Max and Min with a constant scalar, HardSigmoid, HardSwish (the op, or
 * written out: {@link HardSwishPattern}), Sigmoid and Tanh. Each becomes a {@link ChannelOps.Step}; the chain stops at
 * the first node that is none of these, or whose input is read by anything else.
 *
 * @param nodes the chain's nodes, in order
 * @param steps what they compute, in order
 * @param output the value the last node computes (the convolution's output when the chain is empty)
 */
record ChannelChain(List<NodeView> nodes, List<ChannelOps.Step> steps, ValueView output) {
    /**
     * Follows the chain from a convolution's output.
     *
     * @param v the convolution's output
     * @param channels its channel count (axis 1)
     * @param rank its rank
     * @return the chain, possibly empty
     */
    static ChannelChain after(ValueView v, int channels, int rank) {
        List<NodeView> nodes = new ArrayList<>();
        List<ChannelOps.Step> steps = new ArrayList<>();
        while (v != null) {
            if (!v.isGraphOutput() && v.consumers().size() == 2) {
                HardSwishPattern hs = HardSwishPattern.on(v);
                if (hs == null) {
                    break;
                }
                nodes.addAll(hs.nodes());
                steps.add(ChannelOps.activation(Activation.HARD_SWISH));
                v = hs.output();
                continue;
            }
            NodeView next = Pattern.soleConsumer(v);
            ChannelOps.Step step = next == null || Pattern.output(next) == null || next.inputs().isEmpty()
                    || next.inputs().get(0) == null ? null : step(next, v, channels, rank);
            if (step == null) {
                break;
            }
            nodes.add(next);
            steps.add(step);
            v = Pattern.output(next);
        }
        return new ChannelChain(nodes, steps, v);
    }

    /** What one node does to the value {@code v}, or {@code null} when it is not a channel-wise step. */
    private static ChannelOps.Step step(NodeView n, ValueView v, int channels, int rank) {
        switch (n.opType()) {
            case "BatchNormalization":
                return Pattern.is(n, n.opType()) ? batchNorm(n, v, channels) : null;
            case "Mul": case "Add": case "Sub": case "Div":
                return Pattern.is(n, n.opType()) ? arithmetic(n, v, channels, rank) : null;
            default:
                Activation a = activation(n, v, rank);
                return a == null ? null : ChannelOps.activation(a);
        }
    }

    /** A BatchNormalization in inference mode whose parameters are constants: {@code y = x * s + t}. */
    private static ChannelOps.Step batchNorm(NodeView n, ValueView v, int channels) {
        if (n.inputs().size() != 5 || !n.inputs().get(0).name().equals(v.name()) || n.outputs().size() != 1
                || n.intAttr("training_mode", 0) != 0 || n.opsetVersion() < 9 && n.intAttr("spatial", 1) != 1) {
            return null;
        }
        float[][] p = new float[4][];
        for (int i = 0; i < 4; i++) {
            Tensor t = Pattern.constantFloats(n.inputs().get(i + 1)).orElse(null);
            if (t == null || t.size() != channels) {
                return null;
            }
            p[i] = t.floats();
        }
        double eps = n.floatAttr("epsilon", 1e-5f);
        float[] scale = new float[channels];
        float[] shift = new float[channels];
        for (int c = 0; c < channels; c++) {
            double s = p[0][c] / Math.sqrt(p[3][c] + eps);
            scale[c] = (float) s;
            shift[c] = (float) (p[1][c] - p[2][c] * s);
        }
        return ChannelOps.affine(scale, shift);
    }

    /** Mul, Add, Sub or Div of {@code v} by a constant of one value or one per channel. */
    private static ChannelOps.Step arithmetic(NodeView n, ValueView v, int channels, int rank) {
        ValueView other = Pattern.other(n, v);
        if (other == null || other.name().equals(v.name())) {
            return null;
        }
        float[] c = perChannel(other, channels, rank);
        if (c == null) {
            return null;
        }
        boolean vFirst = n.inputs().get(0).name().equals(v.name());
        switch (n.opType()) {
            case "Mul":
                return ChannelOps.affine(c, null);
            case "Add":
                return ChannelOps.affine(null, c);
            case "Sub":
                if (vFirst) {
                    float[] neg = new float[c.length];
                    for (int i = 0; i < c.length; i++) {
                        neg[i] = -c[i];
                    }
                    return ChannelOps.affine(null, neg);
                }
                return ChannelOps.affine(new float[] {-1f}, c);
            default:
                if (!vFirst) {
                    return null;
                }
                float[] inv = new float[c.length];
                for (int i = 0; i < c.length; i++) {
                    inv[i] = 1f / c[i];
                }
                return ChannelOps.affine(inv, null);
        }
    }

    /**
     * The values of a float32 constant that broadcasts against a tensor of the given rank without changing its shape
     * and varies at most along axis 1: one value, or one per channel; {@code null} otherwise.
     */
    static float[] perChannel(ValueView v, int channels, int rank) {
        Tensor t = Pattern.constantFloats(v).orElse(null);
        if (t == null || t.rank() > rank) {
            return null;
        }
        if (t.size() == 1) {
            return new float[] {t.floats()[0]};
        }
        for (int i = 0; i < t.rank(); i++) {
            int axis = rank - t.rank() + i;
            long d = t.dim(i);
            if (d != 1 && !(axis == 1 && d == channels)) {
                return null;
            }
        }
        return t.size() == channels ? t.floats().clone() : null;
    }

    /** The activation a node computes on {@code v}, or {@code null}. */
    private static Activation activation(NodeView n, ValueView v, int rank) {
        if (!n.inputs().get(0).name().equals(v.name()) || !Pattern.is(n, n.opType())) {
            return null;
        }
        switch (n.opType()) {
            case "Relu":
                return Activation.RELU;
            case "Sigmoid":
                return Activation.SIGMOID;
            case "Tanh":
                return Activation.TANH;
            case "HardSwish":
                return Activation.HARD_SWISH;
            case "LeakyRelu":
                return Activation.leakyRelu(n.floatAttr("alpha", 0.01f));
            case "HardSigmoid":
                return Activation.hardSigmoid(n.floatAttr("alpha", 0.2f), n.floatAttr("beta", 0.5f));
            case "Clip": {
                float[] b = clipBounds(n);
                return b == null ? null : Activation.clip(b[0], b[1]);
            }
            case "Max": case "Min": {
                if (n.inputs().size() != 2 || n.inputs().get(1) == null) {
                    return null;
                }
                ValueView other = n.inputs().get(1);
                Optional<Float> c = Pattern.scalar(other);
                if (c.isEmpty() || other.initializer().map(t -> t.rank() > rank || t.type() != ElementType.FLOAT)
                        .orElse(true)) {
                    return null;
                }
                return n.opType().equals("Max") ? Activation.clip(c.get(), Float.POSITIVE_INFINITY)
                        : Activation.clip(Float.NEGATIVE_INFINITY, c.get());
            }
            default:
                return null;
        }
    }

    /**
     * The bounds of a Clip when they are constants: attributes before opset 11, optional scalar inputs from then on.
     *
     * @param clip the node
     * @return {@code {min, max}}, or {@code null} when a bound is not a constant
     */
    static float[] clipBounds(NodeView clip) {
        if (clip.opsetVersion() < 11) {
            return new float[] {clip.floatAttr("min", -Float.MAX_VALUE), clip.floatAttr("max", Float.MAX_VALUE)};
        }
        float[] b = {Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY};
        for (int i = 1; i <= 2; i++) {
            if (clip.inputs().size() > i && clip.inputs().get(i) != null) {
                ValueView bound = clip.inputs().get(i);
                Optional<Float> c = Pattern.scalar(bound);
                if (c.isEmpty() || bound.initializer().map(t -> t.type() != ElementType.FLOAT).orElse(true)) {
                    return null;
                }
                b[i - 1] = c.get();
            }
        }
        return b;
    }
}
