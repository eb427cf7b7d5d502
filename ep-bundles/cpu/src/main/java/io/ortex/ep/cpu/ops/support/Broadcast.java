package io.ortex.ep.cpu.ops.support;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;

/**
 * Multidirectional (NumPy-style) broadcasting: the output shape of several inputs, and for each input the
 * element strides over the output's axes, 0 along axes it is broadcast on.
 */
public final class Broadcast {
    private Broadcast() {
    }

    /**
     * Computes the broadcast shape of several shapes.
     *
     * @param shapes the input shapes
     * @return the output shape
     * @throws InvalidArgumentException when two dimensions differ and neither is 1
     */
    public static long[] shape(long[]... shapes) {
        int rank = 0;
        for (long[] s : shapes) {
            rank = Math.max(rank, s.length);
        }
        long[] out = new long[rank];
        java.util.Arrays.fill(out, 1);
        for (long[] s : shapes) {
            for (int i = 0; i < s.length; i++) {
                int axis = rank - s.length + i;
                long d = s[i];
                if (out[axis] == 1) {
                    out[axis] = d;
                } else if (d != 1 && d != out[axis]) {
                    throw new InvalidArgumentException("shapes " + describe(shapes) + " cannot be broadcast together");
                }
            }
        }
        return out;
    }

    /**
     * Computes the strides of an input over the output's axes: row-major strides of the input, 0 where the input
     * has size 1 (or no axis) and the output does not.
     *
     * @param in the input shape
     * @param out the broadcast output shape
     * @return one stride per output axis
     */
    public static int[] strides(long[] in, long[] out) {
        int[] strides = new int[out.length];
        int stride = 1;
        for (int i = out.length - 1; i >= 0; i--) {
            int inAxis = i - (out.length - in.length);
            if (inAxis < 0) {
                strides[i] = 0;
                continue;
            }
            long d = in[inAxis];
            strides[i] = d == 1 && out[i] != 1 ? 0 : stride;
            stride *= (int) d;
        }
        return strides;
    }

    /**
     * Expands an input to the output shape, giving for each output element the input's flat index. Useful for
     * ops on uncommon types, where the index map is cheaper to write than a typed loop.
     *
     * @param in the input shape
     * @param out the output shape (a broadcast of {@code in})
     * @return the index into the input for each output element
     */
    public static int[] indexMap(long[] in, long[] out) {
        int size = Tensor.checkedElementCount(out);
        int[] map = new int[size];
        if (size == 0) {
            return map;
        }
        int[] strides = strides(in, out);
        int rank = out.length;
        int[] counter = new int[rank];
        int offset = 0;
        for (int i = 0; i < size; i++) {
            map[i] = offset;
            for (int axis = rank - 1; axis >= 0; axis--) {
                counter[axis]++;
                offset += strides[axis];
                if (counter[axis] < out[axis]) {
                    break;
                }
                offset -= strides[axis] * counter[axis];
                counter[axis] = 0;
            }
        }
        return map;
    }

    private static String describe(long[][] shapes) {
        StringBuilder sb = new StringBuilder();
        for (long[] s : shapes) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append('[').append(Tensor.shapeString(s)).append(']');
        }
        return sb.toString();
    }
}
