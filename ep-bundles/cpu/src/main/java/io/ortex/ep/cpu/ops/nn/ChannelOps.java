package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.ep.cpu.linalg.Activation;
import io.ortex.ep.cpu.linalg.Elementwise;
import java.util.ArrayList;
import java.util.List;

/**
 * What is done to a convolution's output channel by channel, in order, before it is stored: per-channel affine maps
 * ({@code y * scale + shift}: a BatchNormalization, the Mul and Add exporters write) and activations. A convolution
 * folds the affine maps that come before the first activation into its weights and bias, applies that activation in
 * its product's epilogue, and the rest to each block of output while it is still in cache. Immutable.
 */
public final class ChannelOps {
    /** Nothing: the convolution as computed. */
    public static final ChannelOps NONE = new ChannelOps(List.of());

    private final List<Step> steps;

    private ChannelOps(List<Step> steps) {
        this.steps = List.copyOf(steps);
    }

    /**
     * One operation: an activation, or an affine map.
     *
     * @param activation the activation, or {@code null} for an affine map
     * @param scale the factors: one value for every channel, one per channel, or {@code null} for 1
     * @param shift the terms: one value for every channel, one per channel, or {@code null} for 0
     */
    public record Step(Activation activation, float[] scale, float[] shift) {
        /** The factor for a channel. */
        float scale(int channel) {
            return scale == null ? 1f : scale[scale.length == 1 ? 0 : channel];
        }

        /** The term for a channel. */
        float shift(int channel) {
            return shift == null ? 0f : shift[shift.length == 1 ? 0 : channel];
        }

        boolean isAffine() {
            return activation == null;
        }
    }

    /**
     * An affine map {@code y * scale + shift}.
     *
     * @param scale one value, one per channel, or {@code null} for 1
     * @param shift one value, one per channel, or {@code null} for 0
     * @return the step
     */
    public static Step affine(float[] scale, float[] shift) {
        return new Step(null, scale == null ? null : scale.clone(), shift == null ? null : shift.clone());
    }

    /**
     * An activation.
     *
     * @param activation the function
     * @return the step
     */
    public static Step activation(Activation activation) {
        return new Step(activation, null, null);
    }

    /**
     * Makes the operations.
     *
     * @param steps the steps, in order
     * @return the operations
     */
    public static ChannelOps of(List<Step> steps) {
        return steps.isEmpty() ? NONE : new ChannelOps(steps);
    }

    /**
     * Gets the steps.
     *
     * @return the steps, in order
     */
    public List<Step> steps() {
        return steps;
    }

    /**
     * Checks that every per-channel value list fits a channel count.
     *
     * @param channels the output channels
     * @throws InvalidArgumentException when a list has neither one value nor one per channel
     */
    void check(int channels) {
        for (Step s : steps) {
            for (float[] v : new float[][] {s.scale(), s.shift()}) {
                if (v != null && v.length != 1 && v.length != channels) {
                    throw new InvalidArgumentException("a per-channel value list has " + v.length
                            + " values for " + channels + " output channels");
                }
            }
        }
    }

    /** The steps from the first activation on; the affine maps before it are folded into the weights. */
    List<Step> fromFirstActivation() {
        int i = 0;
        while (i < steps.size() && steps.get(i).isAffine()) {
            i++;
        }
        return steps.subList(i, steps.size());
    }

    /** The affine maps before the first activation. */
    List<Step> leadingAffine() {
        return steps.subList(0, steps.size() - fromFirstActivation().size());
    }

    /**
     * Applies steps to one run of a channel's values, in place.
     *
     * @param steps the steps
     * @param y the values
     * @param off the first index
     * @param len how many
     * @param channel the output channel
     */
    static void apply(List<Step> steps, float[] y, int off, int len, int channel) {
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            if (s.isAffine()) {
                Elementwise.affine(y, off, s.scale(channel), s.shift(channel), y, off, len);
            } else {
                s.activation().apply(y, off, len);
            }
        }
    }

    /**
     * Folds the affine maps before the first activation into weights and a bias: each output channel's weights are
     * scaled and its bias scaled and shifted. The arrays are copied.
     *
     * @param weights the weights, {@code channels} runs of {@code perChannel} values (output channel first)
     * @param bias the bias, or {@code null}
     * @param channels the output channels
     * @param perChannel the weights of one output channel
     * @return the weights and the bias (never {@code null} when a map shifts)
     */
    float[][] fold(float[] weights, float[] bias, int channels, int perChannel) {
        List<Step> lead = leadingAffine();
        float[] w = weights.clone();
        float[] b = bias == null ? null : bias.clone();
        for (Step s : lead) {
            if (b == null && s.shift() != null) {
                b = new float[channels];
            }
            for (int c = 0; c < channels; c++) {
                float k = s.scale(c);
                if (k != 1f) {
                    for (int i = c * perChannel; i < (c + 1) * perChannel; i++) {
                        w[i] *= k;
                    }
                }
                if (b != null) {
                    b[c] = b[c] * k + s.shift(c);
                }
            }
        }
        return new float[][] {w, b};
    }

    /**
     * Appends a step.
     *
     * @param step the step
     * @return the operations with the step last
     */
    public ChannelOps then(Step step) {
        List<Step> all = new ArrayList<>(steps);
        all.add(step);
        return new ChannelOps(all);
    }
}
