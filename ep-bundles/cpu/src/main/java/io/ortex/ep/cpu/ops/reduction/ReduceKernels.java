package io.ortex.ep.cpu.ops.reduction;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.KernelFactory;

/**
 * Makes the kernels of the Reduce* ops. Before the opset where {@code axes} became an input (13 for ReduceSum, 18
 * for the others) the axes come from the attribute; from it on, from the optional second input, read once when it
 * is a constant initializer, with {@code noop_with_empty_axes} deciding what an empty list means.
 */
final class ReduceKernels {
    private ReduceKernels() {
    }

    /**
     * Gives the factory for one reduction.
     *
     * @param kind the reduction
     * @param axesAsInput whether the node's opset takes the axes as the optional second input (from
     *     {@link ReduceKind#axesInputSince}) rather than as the attribute
     * @return the factory
     */
    static KernelFactory factory(ReduceKind kind, boolean axesAsInput) {
        return node -> create(kind, node, axesAsInput);
    }

    private static CpuKernel create(ReduceKind kind, NodeView node, boolean axesAsInput) {
        boolean keepDims = node.intAttr("keepdims", 1) != 0;
        boolean noop = axesAsInput && node.intAttr("noop_with_empty_axes", 0) != 0;
        long[] fixedAxes = axesAsInput ? constantAxes(node) : node.intsAttr("axes", new long[0]);
        boolean axesFixed = !axesAsInput || fixedAxes != null || node.inputs().size() < 2
                || node.inputs().get(1) == null;
        long[] prepared = fixedAxes == null ? new long[0] : fixedAxes;
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] axes = axesFixed ? prepared : axesOf(in.length > 1 ? in[1] : null, kind.opName);
            ReduceLayout l = ReduceLayout.plan(x.shape(), axes, keepDims, noop, kind.opName);
            Tensor out = x.type() == ElementType.FLOAT
                    ? Tensor.ofFloats(FloatReducer.reduce(kind, x.floats(), l, ctx), l.outShape)
                    : WideReducer.reduce(kind, x, l, ctx);
            return new Tensor[] {out};
        };
    }

    private static long[] constantAxes(NodeView node) {
        if (node.inputs().size() < 2) {
            return null;
        }
        ValueView v = node.inputs().get(1);
        if (v == null || !v.isConstantInitializer()) {
            return null;
        }
        return axesOf(v.initializer().orElseThrow(), node.opType());
    }

    /**
     * Reads an {@code axes} input.
     *
     * @param t the tensor, or {@code null} when omitted
     * @param op the op name, for messages
     * @return the axes, empty when omitted
     */
    static long[] axesOf(Tensor t, String op) {
        if (t == null) {
            return new long[0];
        }
        if (!t.type().isInteger() || t.rank() > 1) {
            throw new InvalidArgumentException(op + " input 'axes' must be a 1-D integer tensor, got " + t.type()
                    + " of shape " + Tensor.shapeString(t.shape()));
        }
        long[] axes = new long[t.size()];
        for (int i = 0; i < axes.length; i++) {
            axes[i] = t.getLong(i);
        }
        return axes;
    }
}
