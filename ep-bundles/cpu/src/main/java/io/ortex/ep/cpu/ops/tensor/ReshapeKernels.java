package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Shapes;

/**
 * Ops that only change the shape and share the input's array: Reshape, Flatten, Squeeze, Unsqueeze, and the shape
 * queries Shape and Size.
 */
final class ReshapeKernels {
    private ReshapeKernels() {
    }

    /**
     * Reshape of opsets 1 to 4: the shape from the attribute {@code shape}; 0 copies the input dimension, one -1
     * is inferred.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel reshapeFromAttribute(NodeView node) {
        long[] shape = Shapes.requiredInts(node, "shape");
        return (in, ctx) -> new Tensor[] {in[0].reshape(target(in[0].shape(), shape, false))};
    }

    /**
     * Reshape from opset 5: the shape from the second input; 0 copies the input dimension unless
     * {@code allowzero=1}, one -1 is inferred.
     *
     * @param node the node
     * @param hasAllowZero whether the node's opset has the attribute {@code allowzero} (14 on)
     * @return the kernel
     */
    static CpuKernel reshape(NodeView node, boolean hasAllowZero) {
        boolean allowZero = hasAllowZero && node.intAttr("allowzero", 0) != 0;
        return (in, ctx) -> new Tensor[] {
            in[0].reshape(target(in[0].shape(), Shapes.longs(in[1], "shape"), allowZero))};
    }

    static long[] target(long[] input, long[] requested, boolean allowZero) {
        long[] out = requested.clone();
        int inferred = -1;
        long known = 1;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == 0 && !allowZero) {
                if (i >= input.length) {
                    throw new InvalidArgumentException("shape entry " + i + " is 0 but the input has rank "
                            + input.length);
                }
                out[i] = input[i];
            }
            if (out[i] == -1) {
                if (inferred >= 0) {
                    throw new InvalidArgumentException("shape " + java.util.Arrays.toString(requested)
                            + " has more than one -1");
                }
                inferred = i;
            } else if (out[i] < 0) {
                throw new InvalidArgumentException("shape " + java.util.Arrays.toString(requested)
                        + " has a negative entry");
            } else {
                known *= out[i];
            }
        }
        if (inferred >= 0) {
            long total = Tensor.checkedElementCount(input);
            if (known == 0 || total % known != 0) {
                throw new InvalidArgumentException("cannot reshape " + Tensor.shapeString(input) + " to "
                        + java.util.Arrays.toString(requested));
            }
            out[inferred] = total / known;
        }
        return out;
    }

    /**
     * Flatten: a 2-D view, the dimensions before {@code axis} times those from it.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel flatten(NodeView node) {
        long axisAttr = node.intAttr("axis", 1);
        return (in, ctx) -> {
            long[] s = in[0].shape();
            long a = axisAttr < 0 ? axisAttr + s.length : axisAttr;
            if (a < 0 || a > s.length) {
                throw new InvalidArgumentException("axis " + axisAttr + " is out of range for rank " + s.length);
            }
            int axis = (int) a;
            long outer = 1;
            for (int i = 0; i < axis; i++) {
                outer *= s[i];
            }
            long inner = 1;
            for (int i = axis; i < s.length; i++) {
                inner *= s[i];
            }
            return new Tensor[] {in[0].reshape(outer, inner)};
        };
    }

    /**
     * Squeeze: removes the listed size-1 axes (attribute before opset 13, optional input from 13), or all of them
     * when none are listed (an empty list too, as ONNX Runtime does).
     *
     * @param node the node
     * @param fromInput whether the axes are the optional second input (opset 13 on) rather than the attribute
     * @return the kernel
     */
    static CpuKernel squeeze(NodeView node, boolean fromInput) {
        long[] attrAxes = fromInput ? null : node.intsAttr("axes", null);
        return (in, ctx) -> {
            long[] axes = attrAxes;
            Tensor axesIn = fromInput ? Shapes.optional(in, 1) : null;
            if (axesIn != null) {
                axes = Shapes.longs(axesIn, "axes");
            }
            long[] s = in[0].shape();
            boolean[] drop = new boolean[s.length];
            if (axes == null || axes.length == 0) {
                for (int i = 0; i < s.length; i++) {
                    drop[i] = s[i] == 1;
                }
            } else {
                for (long a : axes) {
                    int axis = Shapes.axis(a, s.length, "axes entry");
                    if (s[axis] != 1) {
                        throw new InvalidArgumentException("cannot squeeze axis " + a + " of shape "
                                + Tensor.shapeString(s) + ": its size is not 1");
                    }
                    drop[axis] = true;
                }
            }
            int kept = 0;
            for (boolean d : drop) {
                kept += d ? 0 : 1;
            }
            long[] out = new long[kept];
            int k = 0;
            for (int i = 0; i < s.length; i++) {
                if (!drop[i]) {
                    out[k++] = s[i];
                }
            }
            return new Tensor[] {in[0].reshape(out)};
        };
    }

    /**
     * Unsqueeze: inserts size-1 axes at the listed output positions (attribute before opset 13, input from 13).
     *
     * @param node the node
     * @param fromInput whether the axes are the second input (opset 13 on) rather than the attribute
     * @return the kernel
     */
    static CpuKernel unsqueeze(NodeView node, boolean fromInput) {
        long[] attrAxes = fromInput ? null : Shapes.requiredInts(node, "axes");
        return (in, ctx) -> {
            long[] axes = attrAxes != null ? attrAxes : Shapes.longs(in[1], "axes");
            long[] s = in[0].shape();
            int rank = s.length + axes.length;
            boolean[] inserted = new boolean[rank];
            for (long a : axes) {
                int axis = Shapes.axis(a, rank, "axes entry");
                if (inserted[axis]) {
                    throw new InvalidArgumentException("axes entry " + a + " is repeated");
                }
                inserted[axis] = true;
            }
            long[] out = new long[rank];
            int k = 0;
            for (int i = 0; i < rank; i++) {
                out[i] = inserted[i] ? 1 : s[k++];
            }
            return new Tensor[] {in[0].reshape(out)};
        };
    }

    /**
     * Shape: the input's dimensions as int64, optionally a [start, end) range of them (opset 15+).
     *
     * @param node the node
     * @param ranged whether the node's opset has the attributes {@code start} and {@code end} (15 on)
     * @return the kernel
     */
    static CpuKernel shape(NodeView node, boolean ranged) {
        long startAttr = ranged ? node.intAttr("start", 0) : 0;
        Long endAttr = ranged && node.attribute("end").isPresent() ? node.intAttr("end", 0) : null;
        return (in, ctx) -> {
            long[] s = in[0].shape();
            int r = s.length;
            int start = clampAxis(startAttr, r);
            int end = endAttr == null ? r : clampAxis(endAttr, r);
            int n = Math.max(0, end - start);
            long[] out = new long[n];
            System.arraycopy(s, start, out, 0, n);
            return new Tensor[] {Tensor.ofLongs(out, n)};
        };
    }

    private static int clampAxis(long v, int rank) {
        long a = v < 0 ? v + rank : v;
        return (int) Math.max(0, Math.min(rank, a));
    }

    /**
     * Size: the element count as an int64 scalar.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel size(NodeView node) {
        return (in, ctx) -> new Tensor[] {Tensor.ofLongs(new long[] {in[0].size()})};
    }
}
