package io.ortex.ep.example.program;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;

/**
 * ONNX's multidirectional (numpy) broadcasting rules: shapes are aligned on their last axis and each pair of
 * dimensions must be equal or contain a 1. Stateless.
 */
final class Broadcasting {
    private Broadcasting() {
    }

    /**
     * Computes the broadcast shape of two shapes.
     *
     * @param a the first shape
     * @param b the second shape
     * @param what the op, for messages
     * @return the result shape
     * @throws InvalidArgumentException when the shapes do not broadcast
     */
    static long[] shape(long[] a, long[] b, String what) {
        int rank = Math.max(a.length, b.length);
        long[] out = new long[rank];
        for (int i = 0; i < rank; i++) {
            long da = i < rank - a.length ? 1 : a[i - (rank - a.length)];
            long db = i < rank - b.length ? 1 : b[i - (rank - b.length)];
            if (da != db && da != 1 && db != 1) {
                throw new InvalidArgumentException(what + ": shapes " + Tensor.shapeString(a) + " and "
                        + Tensor.shapeString(b) + " do not broadcast");
            }
            out[i] = da == 1 ? db : da;
        }
        return out;
    }

    /**
     * Computes, for each axis of {@code out}, the element stride of {@code in} along it: 0 where {@code in} is
     * broadcast (a missing leading axis or a dimension of 1).
     *
     * @param in the input shape, broadcastable to {@code out}
     * @param out the result shape
     * @return one stride per axis of {@code out}
     */
    static int[] strides(long[] in, long[] out) {
        int[] strides = new int[out.length];
        int stride = 1;
        for (int i = in.length - 1; i >= 0; i--) {
            int axis = out.length - in.length + i;
            strides[axis] = in[i] == 1 ? 0 : stride;
            stride *= (int) in[i];
        }
        return strides;
    }

    /**
     * Maps each linear index of {@code out} to the linear index of the element of {@code in} it reads.
     *
     * @param in the input shape, broadcastable to {@code out}
     * @param out the result shape
     * @return one input index per element of {@code out}
     */
    static int[] indexMap(long[] in, long[] out) {
        int[] strides = strides(in, out);
        int count = Tensor.checkedElementCount(out);
        int[] map = new int[count];
        for (int linear = 0; linear < count; linear++) {
            map[linear] = offset(linear, out, strides, out.length);
        }
        return map;
    }

    /**
     * Computes the input offset of an element given by its linear index over the first {@code axes} axes of
     * {@code out}.
     *
     * @param linear the linear index over those axes
     * @param out the result shape
     * @param strides the input's strides along each axis of {@code out}
     * @param axes how many leading axes {@code linear} counts
     * @return the input offset
     */
    static int offset(int linear, long[] out, int[] strides, int axes) {
        int offset = 0;
        int rest = linear;
        for (int axis = axes - 1; axis >= 0; axis--) {
            int dim = (int) out[axis];
            offset += (rest % dim) * strides[axis];
            rest /= dim;
        }
        return offset;
    }
}
