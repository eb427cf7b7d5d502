package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Values;

/** Small helpers shared by the normalization kernels: optional inputs and outputs, parameter broadcasting. */
final class NormSupport {
    private NormSupport() {
    }

    /**
     * Gets an input that may be omitted.
     *
     * @param in the kernel inputs
     * @param i the index
     * @return the tensor, or {@code null}
     */
    static Tensor optional(Tensor[] in, int i) {
        return i < in.length ? in[i] : null;
    }

    /**
     * Gets a required input.
     *
     * @param in the kernel inputs
     * @param i the index
     * @param what the op and input name, for the message
     * @return the tensor
     * @throws InvalidArgumentException when it is missing
     */
    static Tensor required(Tensor[] in, int i, String what) {
        Tensor t = optional(in, i);
        if (t == null) {
            throw new InvalidArgumentException(what + " is required");
        }
        return t;
    }

    /**
     * Tells whether the node asks for an optional output.
     *
     * @param node the node
     * @param i the output index
     * @return true when the output exists and has a name
     */
    static boolean wantsOutput(NodeView node, int i) {
        return i < node.outputs().size() && node.outputs().get(i) != null;
    }

    /**
     * Gives the element type the model declares for an output.
     *
     * @param node the node
     * @param i the output index
     * @param fallback the type when none is declared
     * @return the type
     */
    static ElementType declaredType(NodeView node, int i, ElementType fallback) {
        if (!wantsOutput(node, i)) {
            return fallback;
        }
        ValueView v = node.outputs().get(i);
        ElementType t = v.typeInfo().map(TensorInfo::type).orElse(null);
        return t == null || !t.isFloatingPoint() ? fallback : t;
    }

    /**
     * Checks that a per-channel parameter has the expected number of elements.
     *
     * @param t the parameter
     * @param count the expected count
     * @param what the op and input name, for the message
     * @throws InvalidArgumentException when it does not
     */
    static void requireCount(Tensor t, long count, String what) {
        if (t.size() != count) {
            throw new InvalidArgumentException(what + " has " + t.size() + " elements (shape "
                    + Tensor.shapeString(t.shape()) + "), expected " + count);
        }
    }

    /**
     * Gives the flat index into a parameter broadcast (unidirectionally) to a target shape, for parameters that do
     * not already have the target's element count.
     *
     * @param param the parameter's shape
     * @param target the shape it applies to
     * @param what the op and input name, for the message
     * @return for each target element the parameter index
     * @throws InvalidArgumentException when the parameter cannot be broadcast to the target
     */
    static int[] broadcastIndex(long[] param, long[] target, String what) {
        int extra = param.length - target.length;
        for (int i = 0; i < extra; i++) {
            if (param[i] != 1) {
                throw new InvalidArgumentException(what + " of shape " + Tensor.shapeString(param)
                        + " cannot be broadcast to " + Tensor.shapeString(target));
            }
        }
        long[] p = extra > 0 ? java.util.Arrays.copyOfRange(param, extra, param.length) : param;
        for (int i = 0; i < p.length; i++) {
            long d = p[i];
            long t = target[target.length - p.length + i];
            if (d != 1 && d != t) {
                throw new InvalidArgumentException(what + " of shape " + Tensor.shapeString(param)
                        + " cannot be broadcast to " + Tensor.shapeString(target));
            }
        }
        return Broadcast.indexMap(p, target);
    }

    /**
     * Gives a parameter's floats, expanded to the target shape when it is broadcast.
     *
     * @param t the parameter
     * @param target the shape it applies to
     * @param what the op and input name, for the message
     * @return the floats, one per target element
     */
    static float[] floatsFor(Tensor t, long[] target, String what) {
        float[] v = Values.toFloats(t);
        if (v.length == Tensor.checkedElementCount(target)) {
            return v;
        }
        int[] map = broadcastIndex(t.shape(), target, what);
        float[] e = new float[map.length];
        for (int i = 0; i < e.length; i++) {
            e[i] = v[map[i]];
        }
        return e;
    }

    /**
     * Gives a parameter's values as doubles, expanded to the target shape when it is broadcast.
     *
     * @param t the parameter
     * @param target the shape it applies to
     * @param what the op and input name, for the message
     * @return the values, one per target element
     */
    static double[] doublesFor(Tensor t, long[] target, String what) {
        double[] v = Values.toDoubles(t);
        if (v.length == Tensor.checkedElementCount(target)) {
            return v;
        }
        int[] map = broadcastIndex(t.shape(), target, what);
        double[] e = new double[map.length];
        for (int i = 0; i < e.length; i++) {
            e[i] = v[map[i]];
        }
        return e;
    }
}
