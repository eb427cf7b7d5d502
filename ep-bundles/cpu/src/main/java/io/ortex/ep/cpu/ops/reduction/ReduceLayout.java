package io.ortex.ep.cpu.ops.reduction;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import java.util.Arrays;

/**
 * How a reduction walks its input: the output shape, the number of outputs and of elements reduced into each,
 * and either the fast {@code (outer, reduce, inner)} decomposition, when the reduced axes form one contiguous block
 * once size-1 axes are ignored, or offset tables for any other set of axes.
 */
public final class ReduceLayout {
    /** The output shape (reduced axes kept as 1 or dropped). */
    public final long[] outShape;
    /** The number of output elements. */
    public final int outCount;
    /** The number of input elements reduced into each output element. */
    public final int reduceCount;
    /** Whether the reduced axes form one block, so that {@link #outer}, {@link #inner} apply. */
    final boolean contiguous;
    /** The product of the kept axes before the reduced block (contiguous layouts). */
    final int outer;
    /** The product of the kept axes after the reduced block (contiguous layouts). */
    final int inner;
    private final long[] shape;
    private final boolean[] reduced;

    private ReduceLayout(long[] shape, boolean[] reduced, boolean keepDims) {
        this.shape = shape;
        this.reduced = reduced;
        int rank = shape.length;
        int kept = 0;
        for (boolean r : reduced) {
            kept += r ? 0 : 1;
        }
        outShape = new long[keepDims ? rank : kept];
        long reduceCountL = 1;
        for (int i = 0, j = 0; i < rank; i++) {
            if (reduced[i]) {
                reduceCountL *= shape[i];
                if (keepDims) {
                    outShape[j++] = 1;
                }
            } else {
                outShape[j++] = shape[i];
            }
        }
        outCount = Tensor.checkedElementCount(outShape);
        reduceCount = (int) reduceCountL;
        // find the block: axes of size 1 belong to either side
        int first = -1;
        int last = -1;
        for (int i = 0; i < rank; i++) {
            if (reduced[i] && shape[i] != 1) {
                first = first < 0 ? i : first;
                last = i;
            }
        }
        boolean block = true;
        long before = 1;
        long after = 1;
        if (first >= 0) {
            for (int i = first; i <= last; i++) {
                if (!reduced[i] && shape[i] != 1) {
                    block = false;
                }
            }
            for (int i = 0; i < first; i++) {
                before *= reduced[i] ? 1 : shape[i];
            }
            for (int i = last + 1; i < rank; i++) {
                after *= reduced[i] ? 1 : shape[i];
            }
        } else {
            before = outCount;
        }
        contiguous = block;
        outer = (int) before;
        inner = (int) after;
    }

    /**
     * Plans a reduction.
     *
     * @param shape the input shape
     * @param axes the axes to reduce, possibly negative; {@code null} or empty for all (or none, see below)
     * @param keepDims whether reduced axes stay as size 1
     * @param noopWhenEmpty whether an empty {@code axes} reduces nothing rather than everything
     * @param op the op name, for messages
     * @return the layout
     * @throws InvalidArgumentException when an axis is out of range or repeated
     */
    public static ReduceLayout plan(long[] shape, long[] axes, boolean keepDims, boolean noopWhenEmpty, String op) {
        int rank = shape.length;
        boolean[] reduced = new boolean[rank];
        if (axes == null || axes.length == 0) {
            Arrays.fill(reduced, !noopWhenEmpty);
        } else {
            for (long a : axes) {
                int axis = normalizeAxis(a, rank, op + " axes");
                if (reduced[axis]) {
                    throw new InvalidArgumentException(op + " axes repeat axis " + a);
                }
                reduced[axis] = true;
            }
        }
        return new ReduceLayout(shape, reduced, keepDims);
    }

    /**
     * Turns a possibly negative axis into one in {@code [0, rank)}.
     *
     * @param axis the axis
     * @param rank the rank
     * @param what the attribute or input it came from, for the message
     * @return the axis
     * @throws InvalidArgumentException when it is out of range
     */
    public static int normalizeAxis(long axis, int rank, String what) {
        if (axis < -rank || axis >= rank) {
            throw new InvalidArgumentException(what + " value " + axis + " is out of range for rank " + rank);
        }
        return (int) (axis < 0 ? axis + rank : axis);
    }

    /**
     * Gives the flat input offset of the first element reduced into each output element.
     *
     * @return one offset per output element, in output order
     */
    public int[] keptOffsets() {
        return offsets(false);
    }

    /**
     * Gives the offsets, relative to an output's first element, of all elements reduced into it.
     *
     * @return {@link #reduceCount} offsets
     */
    public int[] reducedOffsets() {
        return offsets(true);
    }

    private int[] offsets(boolean ofReduced) {
        int rank = shape.length;
        int[] strides = new int[rank];
        int s = 1;
        for (int i = rank - 1; i >= 0; i--) {
            strides[i] = s;
            s *= (int) Math.max(shape[i], 1);
        }
        int n = ofReduced ? reduceCount : outCount;
        int[] result = new int[n];
        if (n == 0) {
            return result;
        }
        int[] counter = new int[rank];
        int offset = 0;
        for (int k = 0; k < n; k++) {
            result[k] = offset;
            for (int axis = rank - 1; axis >= 0; axis--) {
                if (reduced[axis] != ofReduced) {
                    continue;
                }
                counter[axis]++;
                offset += strides[axis];
                if (counter[axis] < shape[axis]) {
                    break;
                }
                offset -= strides[axis] * counter[axis];
                counter[axis] = 0;
            }
        }
        return result;
    }
}
