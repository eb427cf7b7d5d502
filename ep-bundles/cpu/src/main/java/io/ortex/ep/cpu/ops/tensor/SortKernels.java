package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;

/** Ops that order values: TopK and Unique, for every orderable element type. */
final class SortKernels {
    private SortKernels() {
    }

    /**
     * TopK: the {@code k} largest (or smallest, opset 11+) values along {@code axis} and their int64 indices,
     * sorted; equal values keep the lower index first. {@code k} is an attribute before opset 10, an input after.
     *
     * @param node the node
     * @param kFromInput whether {@code k} is the second input (opset 10 on) rather than the attribute
     * @param hasLargest whether the node's opset has the attribute {@code largest} (11 on; before, always largest)
     * @return the kernel
     */
    static CpuKernel topK(NodeView node, boolean kFromInput, boolean hasLargest) {
        long axisAttr = node.intAttr("axis", -1);
        boolean largest = !hasLargest || node.intAttr("largest", 1) != 0;
        Long kAttr = kFromInput ? null : Shapes.requiredScalarAttr(node, "k");
        return (in, ctx) -> {
            Tensor x = in[0];
            long kv = kAttr != null ? kAttr : Shapes.scalar(in[1], "K");
            long[] s = x.shape();
            int axis = Shapes.axis(axisAttr, s.length, "axis");
            int dim = (int) s[axis];
            if (kv < 0 || kv > dim) {
                throw new InvalidArgumentException("k " + kv + " is out of range for axis " + axis + " of size "
                        + dim);
            }
            int k = (int) kv;
            int outer = Shapes.product(s, 0, axis);
            int inner = Shapes.product(s, axis + 1, s.length);
            long[] out = s.clone();
            out[axis] = k;
            int n = outer * k * inner;
            int[] map = new int[n];
            long[] indices = new long[n];
            ElementOrder.IndexComparator asc = ElementOrder.of(x);
            ElementOrder.IndexComparator cmp = largest ? (a, b) -> asc.compare(b, a) : asc;
            int[] row = new int[dim];
            for (int o = 0; o < outer; o++) {
                for (int j = 0; j < inner; j++) {
                    int base = o * dim * inner + j;
                    for (int p = 0; p < dim; p++) {
                        row[p] = base + p * inner;
                    }
                    ElementOrder.sort(row, 0, dim, cmp);
                    for (int r = 0; r < k; r++) {
                        int at = (o * k + r) * inner + j;
                        map[at] = row[r];
                        indices[at] = (row[r] - base) / inner;
                    }
                }
            }
            Object values = ElementArrays.allocate(x.type(), n);
            ElementArrays.gather(x.data(), map, values);
            return new Tensor[] {Tensor.of(x.type(), out, values), Tensor.ofLongs(indices, out)};
        };
    }

    /**
     * Unique: the distinct elements (or slices along {@code axis}), sorted or in order of first occurrence, with
     * the first-occurrence indices, the inverse indices and the counts.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel unique(NodeView node) {
        boolean sorted = node.intAttr("sorted", 1) != 0;
        boolean hasAxis = node.attribute("axis").isPresent();
        long axisAttr = node.intAttr("axis", 0);
        return (in, ctx) -> {
            Tensor x = hasAxis ? in[0] : in[0].reshape(in[0].size());
            int axis = Shapes.axis(axisAttr, x.rank(), "axis");
            long[] s = x.shape();
            int dim = (int) s[axis];
            int outer = Shapes.product(s, 0, axis);
            int inner = Shapes.product(s, axis + 1, s.length);
            ElementOrder.IndexComparator elements = ElementOrder.of(x);
            ElementOrder.IndexComparator slices = inner == 1 && outer == 1 ? elements : (a, b) -> {
                for (int o = 0; o < outer; o++) {
                    for (int j = 0; j < inner; j++) {
                        int c = elements.compare((o * dim + a) * inner + j, (o * dim + b) * inner + j);
                        if (c != 0) {
                            return c;
                        }
                    }
                }
                return 0;
            };
            int[] order = new int[dim];
            for (int i = 0; i < dim; i++) {
                order[i] = i;
            }
            ElementOrder.sort(order, 0, dim, slices);
            // group equal neighbours; the stable sort puts each group's first occurrence first
            int[] groupOf = new int[dim];
            int[] firstOf = new int[dim];
            int[] countOf = new int[dim];
            int groups = 0;
            for (int i = 0; i < dim; i++) {
                if (i == 0 || slices.compare(order[i - 1], order[i]) != 0) {
                    firstOf[groups] = order[i];
                    groups++;
                }
                groupOf[order[i]] = groups - 1;
                countOf[groups - 1]++;
            }
            // the output position of each group: sorted order, or order of first occurrence
            int[] position = new int[groups];
            int[] groupAt = new int[groups];
            for (int g = 0; g < groups; g++) {
                groupAt[g] = g;
            }
            if (!sorted) {
                int[] first = firstOf;
                ElementOrder.sort(groupAt, 0, groups, (a, b) -> Integer.compare(first[a], first[b]));
            }
            for (int p = 0; p < groups; p++) {
                position[groupAt[p]] = p;
            }
            int[] pick = new int[groups];
            long[] indices = new long[groups];
            long[] counts = new long[groups];
            for (int p = 0; p < groups; p++) {
                pick[p] = firstOf[groupAt[p]];
                indices[p] = pick[p];
                counts[p] = countOf[groupAt[p]];
            }
            long[] inverse = new long[dim];
            for (int i = 0; i < dim; i++) {
                inverse[i] = position[groupOf[i]];
            }
            long[] ys = s.clone();
            ys[axis] = groups;
            Tensor y = Tensor.of(x.type(), ys, GatherKernels.alongAxis(x, axis, pick, ctx));
            return new Tensor[] {y, Tensor.ofLongs(indices, groups), Tensor.ofLongs(inverse, dim),
                Tensor.ofLongs(counts, groups)};
        };
    }
}
