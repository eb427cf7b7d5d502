package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;

/** Indexed reads: Gather, GatherElements, GatherND and Compress. */
final class GatherKernels {
    private GatherKernels() {
    }

    /**
     * Gather: picks slices along {@code axis} by int32/int64 indices of any shape (negative count from the end).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel gather(NodeView node) {
        long axisAttr = node.intAttr("axis", 0);
        return (in, ctx) -> {
            Tensor data = in[0];
            Tensor idx = in[1];
            long[] s = data.shape();
            int axis = Shapes.axis(axisAttr, s.length, "axis");
            long[] is = idx.shape();
            long[] out = new long[s.length - 1 + is.length];
            System.arraycopy(s, 0, out, 0, axis);
            System.arraycopy(is, 0, out, axis, is.length);
            System.arraycopy(s, axis + 1, out, axis + is.length, s.length - axis - 1);
            Tensor.checkedElementCount(out);
            int[] index = Shapes.indices(idx, s[axis], "indices");
            return new Tensor[] {Tensor.of(data.type(), out, alongAxis(data, axis, index, ctx))};
        };
    }

    /**
     * Copies the slices {@code index} of {@code axis}, in order, into a new array.
     *
     * @param data the tensor
     * @param axis the axis
     * @param index normalized indices into the axis
     * @param ctx the kernel context
     * @return the storage array of the result
     */
    static Object alongAxis(Tensor data, int axis, int[] index, KernelContext ctx) {
        long[] s = data.shape();
        int outer = Shapes.product(s, 0, axis);
        int inner = Shapes.product(s, axis + 1, s.length);
        int dim = (int) s[axis];
        int k = index.length;
        Object dst = ElementArrays.allocate(data.type(), outer * k * inner, ctx, false);
        if (outer * k * inner == 0) {
            return dst;
        }
        int[] rowBase = new int[outer * k];
        for (int o = 0; o < outer; o++) {
            for (int j = 0; j < k; j++) {
                rowBase[o * k + j] = (o * dim + index[j]) * inner;
            }
        }
        Object src = data.data();
        int rows = rowBase.length;
        if (inner == 1) {
            ElementArrays.gather(src, rowBase, dst);
        } else if ((long) rows * inner < (1 << 15)) {
            ElementArrays.copyRows(src, rowBase, 1, inner, dst, 0, rows);
        } else {
            ctx.parallelFor(rows, Math.max(1, (1 << 15) / inner),
                    (from, to) -> ElementArrays.copyRows(src, rowBase, 1, inner, dst, from, to));
        }
        return dst;
    }

    /**
     * GatherElements: {@code out[i][j][k] = data[index[i][j][k]][j][k]} for axis 0, and so on.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel gatherElements(NodeView node) {
        long axisAttr = node.intAttr("axis", 0);
        return (in, ctx) -> {
            Tensor data = in[0];
            Tensor idx = in[1];
            long[] s = data.shape();
            long[] is = idx.shape();
            if (is.length != s.length) {
                throw new InvalidArgumentException("indices must have the data's rank " + s.length);
            }
            int axis = Shapes.axis(axisAttr, s.length, "axis");
            int[] map = elementMap(s, is, axis, Shapes.indices(idx, s[axis], "indices"));
            Object dst = ElementArrays.allocate(data.type(), map.length);
            ElementArrays.gather(data.data(), map, dst);
            return new Tensor[] {Tensor.of(data.type(), is, dst)};
        };
    }

    /**
     * Maps each element of an index tensor to the data element it addresses along {@code axis}.
     *
     * @param dataShape the data shape
     * @param idxShape the index shape (same rank, each dimension at most the data's off the axis)
     * @param axis the indexed axis
     * @param index the normalized index values
     * @return flat data offsets, one per index element
     */
    static int[] elementMap(long[] dataShape, long[] idxShape, int axis, int[] index) {
        int rank = dataShape.length;
        for (int i = 0; i < rank; i++) {
            if (i != axis && idxShape[i] > dataShape[i]) {
                throw new InvalidArgumentException("indices shape " + Tensor.shapeString(idxShape)
                        + " exceeds data shape " + Tensor.shapeString(dataShape) + " on axis " + i);
            }
        }
        int[] st = Shapes.strides(dataShape);
        int n = index.length;
        int[] map = new int[n];
        int[] counter = new int[rank];
        int off = 0;
        for (int i = 0; i < n; i++) {
            map[i] = off + index[i] * st[axis];
            for (int a = rank - 1; a >= 0; a--) {
                counter[a]++;
                if (a != axis) {
                    off += st[a];
                }
                if (counter[a] < idxShape[a]) {
                    break;
                }
                if (a != axis) {
                    off -= st[a] * counter[a];
                }
                counter[a] = 0;
            }
        }
        return map;
    }

    /**
     * GatherND: index tuples in the last dimension of {@code indices} pick slices of {@code data}, with
     * {@code batch_dims} leading dimensions shared (opset 12+).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel gatherND(NodeView node) {
        long batchAttr = node.intAttr("batch_dims", 0);
        return (in, ctx) -> {
            Tensor data = in[0];
            long[] s = data.shape();
            long[] is = in[1].shape();
            long[] idx = Shapes.longs(in[1], "indices");
            int b = (int) batchAttr;
            int q = is.length;
            if (q < 1 || b < 0 || b >= Math.min(q, s.length + 1)) {
                throw new InvalidArgumentException("batch_dims " + b + " does not fit indices of rank " + q);
            }
            int k = (int) is[q - 1];
            if (b + k > s.length) {
                throw new InvalidArgumentException("index tuples of length " + k + " exceed the data rank "
                        + s.length + " after " + b + " batch dimensions");
            }
            for (int i = 0; i < b; i++) {
                if (s[i] != is[i]) {
                    throw new InvalidArgumentException("batch dimension " + i + " differs: " + s[i] + " vs " + is[i]);
                }
            }
            long[] out = new long[q - 1 + s.length - b - k];
            System.arraycopy(is, 0, out, 0, q - 1);
            System.arraycopy(s, b + k, out, q - 1, s.length - b - k);
            int batches = Shapes.product(s, 0, b);
            int perBatch = Shapes.product(is, b, q - 1);
            int slice = Shapes.product(s, b + k, s.length);
            int batchStride = Shapes.product(s, b, s.length);
            int[] st = Shapes.strides(s);
            int[] rowBase = new int[batches * perBatch];
            for (int bi = 0; bi < batches; bi++) {
                for (int j = 0; j < perBatch; j++) {
                    int t = bi * perBatch + j;
                    long off = (long) bi * batchStride;
                    for (int d = 0; d < k; d++) {
                        long v = idx[t * k + d];
                        long dim = s[b + d];
                        off += (long) Shapes.index(v, dim, "indices") * st[b + d];
                    }
                    rowBase[t] = (int) off;
                }
            }
            Object dst = ElementArrays.allocate(data.type(), rowBase.length * slice);
            if (slice > 0) {
                ElementArrays.copyRows(data.data(), rowBase, 1, slice, dst, 0, rowBase.length);
            }
            return new Tensor[] {Tensor.of(data.type(), out, dst)};
        };
    }

    /**
     * Compress: keeps the slices along {@code axis} (or the flattened elements) whose condition is true.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel compress(NodeView node) {
        boolean hasAxis = node.attribute("axis").isPresent();
        long axisAttr = node.intAttr("axis", 0);
        return (in, ctx) -> {
            Tensor data = hasAxis ? in[0] : in[0].reshape(in[0].size());
            boolean[] cond = in[1].booleans();
            int axis = Shapes.axis(hasAxis ? axisAttr : 0, data.rank(), "axis");
            long dim = data.dim(axis);
            if (cond.length > dim) {
                throw new InvalidArgumentException("condition has " + cond.length + " entries, axis " + axis
                        + " has size " + dim);
            }
            int count = 0;
            for (boolean c : cond) {
                count += c ? 1 : 0;
            }
            int[] index = new int[count];
            int k = 0;
            for (int i = 0; i < cond.length; i++) {
                if (cond[i]) {
                    index[k++] = i;
                }
            }
            long[] out = data.shape();
            out[axis] = count;
            return new Tensor[] {Tensor.of(data.type(), out, alongAxis(data, axis, index, ctx))};
        };
    }
}
