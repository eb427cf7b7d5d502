package io.ortex.ep.cpu.ops.controlflow;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the control-flow kernels share: the names of a node's outer-scope values, the subgraph lookups, and copies
 * of slices along an axis for tensors of any element type (through {@link System#arraycopy} on the backing
 * arrays). Stateless; the instances are immutable.
 */
final class SubgraphSupport {
    private final String[] outerNames;
    private final int outerOffset;

    private SubgraphSupport(String[] outerNames, int outerOffset) {
        this.outerNames = outerNames;
        this.outerOffset = outerOffset;
    }

    /**
     * Reads which kernel inputs carry the node's implicit inputs: they follow its regular inputs.
     *
     * @param node the control-flow node
     * @return the helper
     */
    static SubgraphSupport of(NodeView node) {
        List<ValueView> implicit = node.implicitInputs();
        String[] names = new String[implicit.size()];
        for (int i = 0; i < names.length; i++) {
            names[i] = implicit.get(i).name();
        }
        return new SubgraphSupport(names, node.inputs().size());
    }

    /**
     * Starts a subgraph's values with the outer-scope values, by name.
     *
     * @param inputs the kernel inputs (regular, then implicit)
     * @return a new mutable map
     */
    Map<String, Tensor> outerValues(Tensor[] inputs) {
        Map<String, Tensor> values = new HashMap<>();
        for (int i = 0; i < outerNames.length; i++) {
            int at = outerOffset + i;
            if (at < inputs.length && inputs[at] != null) {
                values.put(outerNames[i], inputs[at]);
            }
        }
        return values;
    }

    /**
     * Finds a required graph attribute.
     *
     * @param node the node
     * @param attribute the attribute name
     * @return the subgraph
     */
    static GraphView subgraph(NodeView node, String attribute) {
        GraphView g = node.subgraphs().get(attribute);
        if (g == null) {
            throw new InvalidModelException(node.opType() + " needs the graph attribute '" + attribute + "'");
        }
        return g;
    }

    /**
     * Lists a subgraph's input names.
     *
     * @param g the subgraph
     * @return the names, in order
     */
    static String[] inputNames(GraphView g) {
        List<String> names = new ArrayList<>();
        for (ValueView v : g.inputs()) {
            names.add(v.name());
        }
        return names.toArray(new String[0]);
    }

    /**
     * Reads a boolean scalar (a one-element tensor).
     *
     * @param t the tensor
     * @param what the input's name for messages
     * @return its value
     */
    static boolean condition(Tensor t, String what) {
        if (t.size() != 1) {
            throw new InvalidArgumentException(what + " must have exactly one element, got shape ["
                    + Tensor.shapeString(t.shape()) + "]");
        }
        if (t.type() == ElementType.BOOL) {
            return t.booleans()[0];
        }
        return t.getDouble(0) != 0;
    }

    /**
     * Copies slice {@code index} along {@code axis} out of a tensor; the result drops that axis.
     *
     * @param t the tensor
     * @param axis the axis (non-negative)
     * @param index the position along the axis
     * @return the slice
     */
    static Tensor slice(Tensor t, int axis, int index) {
        long[] shape = t.shape();
        int outer = WorkingArrays.product(shape, 0, axis);
        int len = (int) shape[axis];
        int inner = WorkingArrays.product(shape, axis + 1, shape.length);
        long[] sliceShape = new long[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (i != axis) {
                sliceShape[j++] = shape[i];
            }
        }
        Tensor out = Tensor.zeros(t.type(), sliceShape);
        Object src = t.data();
        Object dst = out.data();
        for (int o = 0; o < outer; o++) {
            System.arraycopy(src, (o * len + index) * inner, dst, o * inner, inner);
        }
        return out;
    }

    /**
     * Makes the tensor that stacks slices along a new axis, zero-filled, to be filled by {@link #place}.
     *
     * @param type the element type
     * @param sliceShape the shape of one slice
     * @param axis where the new axis goes (non-negative, at most the slice rank)
     * @param count the number of slices
     * @return the tensor
     */
    static Tensor stacked(ElementType type, long[] sliceShape, int axis, int count) {
        long[] shape = new long[sliceShape.length + 1];
        for (int i = 0, j = 0; i < shape.length; i++) {
            shape[i] = i == axis ? count : sliceShape[j++];
        }
        return Tensor.zeros(type, shape);
    }

    /**
     * Copies one slice into position {@code index} along {@code axis} of a tensor made by {@link #stacked}.
     *
     * @param target the stacked tensor
     * @param axis the stacking axis
     * @param index the position
     * @param slice the slice, whose shape is the target's without the axis
     */
    static void place(Tensor target, int axis, int index, Tensor slice) {
        long[] shape = target.shape();
        int outer = WorkingArrays.product(shape, 0, axis);
        int len = (int) shape[axis];
        int inner = WorkingArrays.product(shape, axis + 1, shape.length);
        if (slice.type() != target.type() || slice.size() != outer * inner) {
            throw new InvalidArgumentException("a scan output of shape [" + Tensor.shapeString(slice.shape())
                    + "] (" + slice.type() + ") does not fit the others, stacked as [" + Tensor.shapeString(shape)
                    + "] (" + target.type() + ")");
        }
        Object src = slice.data();
        Object dst = target.data();
        for (int o = 0; o < outer; o++) {
            System.arraycopy(src, o * inner, dst, (o * len + index) * inner, inner);
        }
    }

    /**
     * Checks that every slice of a scan output has the shape of the first.
     *
     * @param first the first slice's shape
     * @param slice a later slice
     * @param what the output's description for messages
     */
    static void checkSameShape(long[] first, Tensor slice, String what) {
        if (!java.util.Arrays.equals(first, slice.shape())) {
            throw new InvalidArgumentException(what + " has shape [" + Tensor.shapeString(slice.shape())
                    + "] in one iteration and [" + Tensor.shapeString(first) + "] in another");
        }
    }

    /**
     * Makes the empty result of a scan output when no iteration ran, from the body output's declared type.
     *
     * @param declared the body output
     * @param axis the stacking axis
     * @return a tensor with 0 along the axis (and along undeclared dimensions)
     */
    static Tensor emptyStack(ValueView declared, int axis) {
        TensorInfo info = declared.typeInfo().orElse(null);
        ElementType type = info == null || info.type() == null ? ElementType.FLOAT : info.type();
        long[] dims = info == null || info.dims() == null ? new long[0] : info.dims().clone();
        for (int i = 0; i < dims.length; i++) {
            dims[i] = Math.max(dims[i], 0);
        }
        return stacked(type, dims, Math.min(axis, dims.length), 0);
    }
}
