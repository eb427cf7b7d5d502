package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Shapes;

/** Ops that repeat their input: Expand (broadcast to a shape) and Tile, both as zero-stride views. */
final class RepeatKernels {
    private RepeatKernels() {
    }

    /**
     * Expand: broadcasts the input to the broadcast of its shape and the requested shape.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel expand(NodeView node) {
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] requested = Shapes.longs(in[1], "shape");
            long[] out = Broadcast.shape(x.shape(), requested);
            int[] st = Broadcast.strides(x.shape(), out);
            return new Tensor[] {Tensor.of(x.type(), out, StridedCopy.copy(x.type(), x.data(), 0, out, st, ctx))};
        };
    }

    /**
     * Tile: repeats the input {@code repeats[i]} times along each axis.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel tile(NodeView node) {
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = x.shape();
            long[] reps = Shapes.longs(in[1], "repeats");
            if (reps.length != s.length) {
                throw new InvalidArgumentException("repeats has " + reps.length + " entries, the input has rank "
                        + s.length);
            }
            int[] inStrides = Shapes.strides(s);
            // view of shape (r0, d0, r1, d1, ...) with stride 0 on each repeat axis
            long[] view = new long[2 * s.length];
            int[] st = new int[2 * s.length];
            long[] out = new long[s.length];
            for (int i = 0; i < s.length; i++) {
                if (reps[i] < 0) {
                    throw new InvalidArgumentException("repeats entry " + i + " is negative");
                }
                view[2 * i] = reps[i];
                view[2 * i + 1] = s[i];
                st[2 * i + 1] = inStrides[i];
                out[i] = s[i] * reps[i];
            }
            return new Tensor[] {Tensor.of(x.type(), out, StridedCopy.copy(x.type(), x.data(), 0, view, st, ctx))};
        };
    }
}
