package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;

/** Cutting and joining along axes: Slice, Concat and Split. */
final class SliceKernels {
    private SliceKernels() {
    }

    /**
     * Slice of opsets 1 to 9: the attributes starts, ends and axes. Indices are clamped as ONNX specifies.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel sliceFromAttributes(NodeView node) {
        long[] starts = Shapes.requiredInts(node, "starts");
        long[] ends = Shapes.requiredInts(node, "ends");
        long[] axes = node.intsAttr("axes", null);
        return (in, ctx) -> new Tensor[] {slice(in[0], starts, ends, axes, null, ctx)};
    }

    /**
     * Slice from opset 10: the inputs starts, ends, axes and steps. Indices are clamped as ONNX specifies;
     * negative steps walk backwards.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel slice(NodeView node) {
        return (in, ctx) -> {
            long[] starts = Shapes.longs(in[1], "starts");
            long[] ends = Shapes.longs(in[2], "ends");
            Tensor axesT = Shapes.optional(in, 3);
            Tensor stepsT = Shapes.optional(in, 4);
            return new Tensor[] {slice(in[0], starts, ends, axesT == null ? null : Shapes.longs(axesT, "axes"),
                    stepsT == null ? null : Shapes.longs(stepsT, "steps"), ctx)};
        };
    }

    static Tensor slice(Tensor x, long[] starts, long[] ends, long[] axes, long[] steps,
            io.ortex.api.spi.KernelContext ctx) {
        long[] s = x.shape();
        int rank = s.length;
        if (starts.length != ends.length || (axes != null && axes.length != starts.length)
                || (steps != null && steps.length != starts.length)) {
            throw new InvalidArgumentException("starts, ends, axes and steps must have the same length");
        }
        long[] begin = new long[rank];
        long[] step = new long[rank];
        long[] count = s.clone();
        java.util.Arrays.fill(step, 1);
        boolean[] seen = new boolean[rank];
        for (int i = 0; i < starts.length; i++) {
            int axis = Shapes.axis(axes == null ? i : axes[i], rank, "axes entry");
            if (seen[axis]) {
                throw new InvalidArgumentException("axis " + axis + " is sliced twice");
            }
            seen[axis] = true;
            long st = steps == null ? 1 : steps[i];
            if (st == 0) {
                throw new InvalidArgumentException("steps entry " + i + " is 0");
            }
            long dim = s[axis];
            long b = starts[i];
            long e = ends[i];
            b = b < 0 ? b + dim : b;
            e = e < 0 ? e + dim : e;
            long n;
            if (st > 0) {
                b = Math.max(0, Math.min(dim, b));
                e = Math.max(0, Math.min(dim, e));
                n = e > b ? (e - b + st - 1) / st : 0;
            } else {
                b = Math.max(0, Math.min(dim - 1, b));
                e = Math.max(-1, Math.min(dim - 1, e));
                n = b > e ? (b - e + (-st) - 1) / (-st) : 0;
            }
            begin[axis] = n == 0 ? 0 : b;
            step[axis] = st;
            count[axis] = n;
        }
        int[] inStrides = Shapes.strides(s);
        int[] st = new int[rank];
        long base = 0;
        for (int i = 0; i < rank; i++) {
            st[i] = (int) (inStrides[i] * step[i]);
            base += begin[i] * inStrides[i];
        }
        return Tensor.of(x.type(), count, StridedCopy.copy(x.type(), x.data(), (int) base, count, st, ctx));
    }

    /**
     * Concat: joins inputs of the same rank along {@code axis} (negative from opset 11).
     *
     * @param node the node
     * @param axisRequired whether the node's opset requires the attribute {@code axis} (4 on; before, it defaults
     *     to 1)
     * @return the kernel
     */
    static CpuKernel concat(NodeView node, boolean axisRequired) {
        if (node.attribute("axis").isEmpty() && axisRequired) {
            throw new InvalidModelException("attribute 'axis' is required");
        }
        long axisAttr = node.intAttr("axis", 1);
        return (in, ctx) -> {
            // empty inputs of another shape are skipped, as ONNX Runtime does for exported models that concat
            // a [0] placeholder
            Tensor first = in[0];
            for (Tensor t : in) {
                if (t.size() > 0) {
                    first = t;
                    break;
                }
            }
            int rank = first.rank();
            int axis = Shapes.axis(axisAttr, rank, "axis");
            long[] out = first.shape();
            long total = 0;
            for (Tensor t : in) {
                if (t.type() != first.type()) {
                    throw new InvalidArgumentException("inputs have different types " + first.type() + " and "
                            + t.type());
                }
                long[] ts = t.shape();
                if (t.size() == 0 && t != first && !sameOutsideAxis(ts, out, axis)) {
                    continue;
                }
                if (ts.length != rank) {
                    throw new InvalidArgumentException("inputs have different ranks " + rank + " and " + ts.length);
                }
                for (int i = 0; i < rank; i++) {
                    if (i != axis && ts[i] != out[i]) {
                        throw new InvalidArgumentException("input shapes " + Tensor.shapeString(first.shape())
                                + " and " + Tensor.shapeString(ts) + " differ outside axis " + axis);
                    }
                }
                total += ts[axis];
            }
            out[axis] = total;
            int outer = Shapes.product(out, 0, axis);
            int inner = Shapes.product(out, axis + 1, rank);
            int n = Tensor.checkedElementCount(out);
            Object dst = ElementArrays.allocate(first.type(), n, ctx, false);
            int rowLen = (int) total * inner;
            int offset = 0;
            for (Tensor t : in) {
                int chunk = t.size() == 0 ? 0 : (int) t.dim(axis) * inner;
                if (chunk == 0) {
                    continue;
                }
                Object src = t.data();
                for (int o = 0; o < outer; o++) {
                    System.arraycopy(src, o * chunk, dst, o * rowLen + offset, chunk);
                }
                offset += chunk;
            }
            return new Tensor[] {Tensor.of(first.type(), out, dst)};
        };
    }

    private static boolean sameOutsideAxis(long[] a, long[] b, int axis) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (i != axis && a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Split: cuts along {@code axis} into the node's outputs; sizes from the attribute {@code split} (before
     * opset 13), the input {@code split} (13+), or equal parts ({@code num_outputs} from 18, the last smaller).
     *
     * @param node the node
     * @param sizesFromInput whether the sizes are the optional input {@code split} (opset 13 on) rather than the
     *     attribute
     * @param unevenAllowed whether equal parts may leave the last one smaller, and {@code num_outputs} is read
     *     (opset 18 on)
     * @return the kernel
     */
    static CpuKernel split(NodeView node, boolean sizesFromInput, boolean unevenAllowed) {
        long axisAttr = node.intAttr("axis", 0);
        long[] attrSplit = sizesFromInput ? null : node.intsAttr("split", null);
        int outputs = node.outputs().size();
        if (unevenAllowed && node.attribute("num_outputs").isPresent()) {
            long numOutputs = node.intAttr("num_outputs", outputs);
            if (numOutputs != outputs) {
                throw new InvalidModelException("attribute 'num_outputs' is " + numOutputs + " but the node has "
                        + outputs + " outputs");
            }
        }
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = x.shape();
            int axis = Shapes.axis(axisAttr, s.length, "axis");
            long dim = s[axis];
            long[] sizes = attrSplit;
            Tensor splitIn = sizesFromInput ? Shapes.optional(in, 1) : null;
            if (splitIn != null) {
                sizes = Shapes.longs(splitIn, "split");
            }
            if (sizes == null) {
                sizes = new long[outputs];
                long chunk = unevenAllowed ? (dim + outputs - 1) / outputs : dim / outputs;
                if (!unevenAllowed && dim % outputs != 0) {
                    throw new InvalidArgumentException("axis " + axis + " of size " + dim
                            + " cannot be split evenly into " + outputs + " outputs");
                }
                long left = dim;
                for (int i = 0; i < outputs; i++) {
                    sizes[i] = Math.min(chunk, left);
                    left -= sizes[i];
                }
            }
            if (sizes.length != outputs) {
                throw new InvalidArgumentException("split has " + sizes.length + " entries for " + outputs
                        + " outputs");
            }
            long sum = 0;
            for (long v : sizes) {
                if (v < 0) {
                    throw new InvalidArgumentException("split has a negative entry " + v);
                }
                sum += v;
            }
            if (sum != dim) {
                throw new InvalidArgumentException("split sizes add up to " + sum + ", axis " + axis + " has size "
                        + dim);
            }
            int outer = Shapes.product(s, 0, axis);
            int inner = Shapes.product(s, axis + 1, s.length);
            int rowLen = (int) dim * inner;
            Tensor[] result = new Tensor[outputs];
            int offset = 0;
            for (int k = 0; k < outputs; k++) {
                long[] os = s.clone();
                os[axis] = sizes[k];
                int chunk = (int) sizes[k] * inner;
                Object dst = ElementArrays.allocate(x.type(), Tensor.checkedElementCount(os), ctx, false);
                if (chunk > 0) {
                    for (int o = 0; o < outer; o++) {
                        System.arraycopy(x.data(), o * rowLen + offset, dst, o * chunk, chunk);
                    }
                }
                offset += chunk;
                result[k] = Tensor.of(x.type(), os, dst);
            }
            return result;
        };
    }
}
