package io.ortex.ep.example.program;

import java.util.Arrays;

/**
 * The attributes of a {@code Conv} instruction, always in two-dimensional form: a one-dimensional convolution is
 * run as a two-dimensional one over a height of 1, and {@link #spatialRank()} says which the model asked for.
 * Padding is explicit ({@code auto_pad} {@code VALID} becomes zero pads).
 *
 * @param spatialRank 1 or 2, the number of spatial axes of the input and output
 * @param group the number of groups the channels are split into
 * @param kernel the kernel's {@code [height, width]}
 * @param strides {@code [height, width]} strides
 * @param pads {@code [top, left, bottom, right]} pads
 * @param dilations {@code [height, width]} dilations
 */
public record ConvAttributes(int spatialRank, int group, int[] kernel, int[] strides, int[] pads, int[] dilations)
        implements OpAttributes {
    /**
     * Creates the attributes, copying the arrays.
     *
     * @param spatialRank 1 or 2
     * @param group at least 1
     * @param kernel two positive sizes
     * @param strides two positive strides
     * @param pads four pads, each at least 0
     * @param dilations two positive dilations
     */
    public ConvAttributes {
        if (spatialRank < 1 || spatialRank > 2 || group < 1 || kernel.length != 2 || strides.length != 2
                || pads.length != 4 || dilations.length != 2) {
            throw new IllegalArgumentException("malformed Conv attributes");
        }
        kernel = kernel.clone();
        strides = strides.clone();
        pads = pads.clone();
        dilations = dilations.clone();
    }

    /** {@return a copy of the kernel size} */
    @Override
    public int[] kernel() {
        return kernel.clone();
    }

    /** {@return a copy of the strides} */
    @Override
    public int[] strides() {
        return strides.clone();
    }

    /** {@return a copy of the pads} */
    @Override
    public int[] pads() {
        return pads.clone();
    }

    /** {@return a copy of the dilations} */
    @Override
    public int[] dilations() {
        return dilations.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConvAttributes c && spatialRank == c.spatialRank && group == c.group
                && Arrays.equals(kernel, c.kernel) && Arrays.equals(strides, c.strides)
                && Arrays.equals(pads, c.pads) && Arrays.equals(dilations, c.dilations);
    }

    @Override
    public int hashCode() {
        return ((spatialRank * 31 + group) * 31 + Arrays.hashCode(kernel)) * 31
                + Arrays.hashCode(strides) * 7 + Arrays.hashCode(pads) * 3 + Arrays.hashCode(dilations);
    }

    @Override
    public String toString() {
        return "Conv" + spatialRank + "d(group=" + group + ", kernel=" + Arrays.toString(kernel) + ", strides="
                + Arrays.toString(strides) + ", pads=" + Arrays.toString(pads) + ", dilations="
                + Arrays.toString(dilations) + ")";
    }
}
