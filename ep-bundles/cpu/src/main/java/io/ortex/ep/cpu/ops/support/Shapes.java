package io.ortex.ep.cpu.ops.support;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;

/**
 * Small helpers for reading shapes and axes: optional inputs, integer inputs and attributes read as
 * {@code long[]}, axis normalization, row-major strides and products.
 */
public final class Shapes {
    private Shapes() {
    }

    /**
     * Gets an optional input.
     *
     * @param in the kernel's inputs
     * @param i the input index
     * @return the tensor, or {@code null} when the input is omitted
     */
    public static Tensor optional(Tensor[] in, int i) {
        return i < in.length ? in[i] : null;
    }

    /**
     * Tells whether the node has input {@code i} (present and not the empty name).
     *
     * @param node the node
     * @param i the input index
     * @return true when the input is given
     */
    static boolean hasInput(NodeView node, int i) {
        return i < node.inputs().size() && node.inputs().get(i) != null;
    }

    /**
     * Reads index values, adding {@code dim} to negative ones and checking the range.
     *
     * @param idx an integer tensor
     * @param dim the size of the indexed axis
     * @param what the input name, for messages
     * @return the normalized indices
     */
    public static int[] indices(Tensor idx, long dim, String what) {
        int n = idx.size();
        int[] out = new int[n];
        if (idx.type() == ElementType.INT64) {
            long[] v = idx.longs();
            for (int i = 0; i < n; i++) {
                out[i] = index(v[i], dim, what);
            }
        } else if (idx.type() == ElementType.INT32) {
            int[] v = idx.ints();
            for (int i = 0; i < n; i++) {
                out[i] = index(v[i], dim, what);
            }
        } else {
            long[] v = longs(idx, what);
            for (int i = 0; i < n; i++) {
                out[i] = index(v[i], dim, what);
            }
        }
        return out;
    }

    /**
     * Normalizes one index value, adding {@code dim} to a negative one, and checks its range.
     *
     * @param v the value
     * @param dim the size of the indexed axis
     * @param what the input name, for messages
     * @return the index in {@code [0, dim)}
     */
    public static int index(long v, long dim, String what) {
        long i = v < 0 ? v + dim : v;
        if (i < 0 || i >= dim) {
            throw new InvalidArgumentException(what + " value " + v + " is out of range for a dimension of " + dim);
        }
        return (int) i;
    }

    /**
     * Reads an integer tensor (any integer type) as longs.
     *
     * @param t the tensor
     * @param what the input's name, for messages
     * @return the values
     */
    public static long[] longs(Tensor t, String what) {
        if (t.type() == ElementType.INT64) {
            return t.longs();
        }
        if (!t.type().isInteger()) {
            throw new InvalidArgumentException("input '" + what + "' must be an integer tensor, not " + t.type());
        }
        long[] v = new long[t.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = t.getLong(i);
        }
        return v;
    }

    /**
     * Reads a one-element integer tensor.
     *
     * @param t the tensor
     * @param what the input's name, for messages
     * @return the value
     */
    public static long scalar(Tensor t, String what) {
        if (t.size() != 1) {
            throw new InvalidArgumentException("input '" + what + "' must hold one value, it has shape "
                    + Tensor.shapeString(t.shape()));
        }
        return t.type().isFloatingPoint() ? (long) t.getDouble(0) : t.getLong(0);
    }

    /**
     * Normalizes an axis that may be negative.
     *
     * @param axis the axis, in {@code [-rank, rank)}
     * @param rank the rank it indexes
     * @param what the attribute or input name, for messages
     * @return the axis in {@code [0, rank)}
     */
    public static int axis(long axis, int rank, String what) {
        if (axis < -rank || axis >= rank) {
            throw new InvalidArgumentException(what + " " + axis + " is out of range for rank " + rank);
        }
        return (int) (axis < 0 ? axis + rank : axis);
    }

    /**
     * Computes row-major strides.
     *
     * @param shape the shape
     * @return the element stride of each axis
     */
    public static int[] strides(long[] shape) {
        int[] s = new int[shape.length];
        int stride = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = stride;
            stride *= (int) shape[i];
        }
        return s;
    }

    /**
     * Multiplies dimensions {@code [from, to)}.
     *
     * @param shape the shape
     * @param from the first axis
     * @param to one past the last axis
     * @return the product
     */
    public static int product(long[] shape, int from, int to) {
        long p = 1;
        for (int i = from; i < to; i++) {
            p *= shape[i];
        }
        return (int) p;
    }

    /**
     * Gets a required ints attribute.
     *
     * @param node the node
     * @param name the attribute
     * @return its values
     */
    public static long[] requiredInts(NodeView node, String name) {
        long[] v = node.intsAttr(name, null);
        if (v == null) {
            throw new InvalidModelException("attribute '" + name + "' is required");
        }
        return v;
    }

    /**
     * Gets a required int attribute.
     *
     * @param node the node
     * @param name the attribute
     * @return its value
     */
    public static long requiredScalarAttr(NodeView node, String name) {
        if (node.attribute(name).isEmpty()) {
            throw new InvalidModelException("attribute '" + name + "' is required");
        }
        return node.intAttr(name, 0);
    }

    /**
     * Makes a tensor of the same type over a new storage array.
     *
     * @param like the tensor whose type to use
     * @param shape the shape
     * @param data the storage array
     * @return the tensor
     */
    static Tensor like(Tensor like, long[] shape, Object data) {
        return Tensor.of(like.type(), shape, data);
    }
}
