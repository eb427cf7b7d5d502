package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * Float32 nearest-neighbour Resize of at most the last two axes, gathered straight into the output in parallel over
 * the planes: each output row reads its input row through the width's index map, and an output row that reads the
 * same input row as the one before it is a copy of it. Stateless.
 */
final class NearestResize {
    private NearestResize() {
    }

    /**
     * Resizes, or returns {@code null} when another axis than the last two changes or a position lies outside the crop
     * box (the general path handles those).
     *
     * @param x the float32 input
     * @param outShape the output shape
     * @param scale the scale of each axis
     * @param roiStart the crop box start of each axis
     * @param roiEnd the crop box end of each axis
     * @param s the settings (mode nearest)
     * @param ctx the threads and the arena the output comes from
     * @return the output, or {@code null}
     */
    static Tensor resize(Tensor x, long[] outShape, double[] scale, double[] roiStart, double[] roiEnd,
            ResizeAxis.Settings s, KernelContext ctx) {
        int r = x.rank();
        if (r == 0) {
            return null;
        }
        long[] in = x.shape();
        int[][] maps = new int[2][];
        for (int ax = 0; ax < r; ax++) {
            boolean same = in[ax] == outShape[ax] && scale[ax] == 1.0 && roiStart[ax] == 0 && roiEnd[ax] == 1;
            int slot = ax - (r - 2);
            if (same) {
                continue;
            }
            if (slot < 0 || in[ax] == 0) {
                return null;
            }
            maps[slot] = ResizeAxis.build(s, (int) in[ax], (int) outShape[ax], scale[ax], roiStart[ax], roiEnd[ax])
                    .nearestIndices();
            if (maps[slot] == null) {
                return null;
            }
        }
        int h = r >= 2 ? (int) in[r - 2] : 1;
        int w = (int) in[r - 1];
        int oh = r >= 2 ? (int) outShape[r - 2] : 1;
        int ow = (int) outShape[r - 1];
        int[] rows = maps[0] != null ? maps[0] : identity(oh);
        int[] cols = maps[1] != null ? maps[1] : identity(ow);
        Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, outShape);
        int planes = out.size() == 0 ? 0 : out.size() / (oh * ow);
        float[] src = x.floats();
        float[] dst = out.floats();
        ctx.parallelFor(planes, Math.max(1, 16384 / Math.max(1, oh * ow)), (from, to) -> {
            for (int p = from; p < to; p++) {
                int sp = p * h * w;
                int dp = p * oh * ow;
                for (int o = 0; o < oh; o++) {
                    int d = dp + o * ow;
                    if (o > 0 && rows[o] == rows[o - 1]) {
                        System.arraycopy(dst, d - ow, dst, d, ow);
                        continue;
                    }
                    int sr = sp + rows[o] * w;
                    for (int j = 0; j < ow; j++) {
                        dst[d + j] = src[sr + cols[j]];
                    }
                }
            }
        });
        return out;
    }

    private static int[] identity(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }
}
