package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * GridSample (opsets 16 to 22): samples {@code X (N, C, D1..Dr)} at the normalized coordinates of
 * {@code grid (N, H1..Hr, r)}, whose component 0 is the coordinate along the last spatial axis. Modes nearest
 * (round half to even), linear and cubic (A = -0.75) are separable tensor products of 1, 2 or 4 taps per axis;
 * padding is zeros, border or reflection, applied first to the coordinate and then to each tap index, as in ONNX's
 * reference.
 */
final class GridSampleKernel {
    private static final int NEAREST = 0;
    private static final int LINEAR = 1;
    private static final int CUBIC = 2;
    private static final int ZEROS = 0;
    private static final int BORDER = 1;
    private static final int REFLECTION = 2;

    private GridSampleKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @param defaultMode the default of the attribute {@code mode}: {@code bilinear} in opsets 16 to 19,
     *     {@code linear} from 20
     * @return the kernel
     */
    static CpuKernel create(NodeView node, String defaultMode) {
        String m = node.stringAttr("mode", defaultMode);
        int mode = switch (m) {
            case "nearest" -> NEAREST;
            case "linear", "bilinear" -> LINEAR;
            case "cubic", "bicubic" -> CUBIC;
            default -> throw new NotImplementedException("attribute 'mode' value '" + m + "' is not supported");
        };
        String p = node.stringAttr("padding_mode", "zeros");
        int padding = switch (p) {
            case "zeros" -> ZEROS;
            case "border" -> BORDER;
            case "reflection" -> REFLECTION;
            default -> throw new InvalidModelException("attribute 'padding_mode' must be zeros, border or "
                    + "reflection, got '" + p + "'");
        };
        boolean alignCorners = node.intAttr("align_corners", 0) != 0;
        return (in, ctx) -> run(in[0], in[1], mode, padding, alignCorners, ctx);
    }

    private static Tensor[] run(Tensor x, Tensor grid, int mode, int padding, boolean align,
                                io.ortex.api.spi.KernelContext ctx) {
        FloatData.requireFloating(x, "input X");
        FloatData.requireFloating(grid, "input grid");
        long[] xs = x.shape();
        int r = xs.length - 2;
        long[] gs = grid.shape();
        if (r < 1 || gs.length != r + 2 || gs[0] != xs[0] || gs[r + 1] != r) {
            throw new InvalidArgumentException("grid shape " + Tensor.shapeString(gs) + " does not fit X shape "
                    + Tensor.shapeString(xs) + " (expected (N, H1..H" + r + ", " + r + "))");
        }
        if (r != 2 && mode == CUBIC) {
            throw new NotImplementedException("cubic mode supports only 4-D input, got " + xs.length + "-D");
        }
        int n = (int) xs[0];
        int c = (int) xs[1];
        int[] dims = new int[r];
        for (int i = 0; i < r; i++) {
            dims[i] = (int) xs[i + 2];
        }
        int inSpatial = Shapes.product(xs, 2, xs.length);
        int outSpatial = Shapes.product(gs, 1, r + 1);
        long[] os = new long[r + 2];
        os[0] = n;
        os[1] = c;
        System.arraycopy(gs, 1, os, 2, r);
        double[] xv = Values.toDoubles(x);
        double[] gv = Values.toDoubles(grid);
        double[] out = new double[n * c * outSpatial];
        int taps = mode == NEAREST ? 1 : mode == LINEAR ? 2 : 4;
        int[] strides = new int[r];
        int s = 1;
        for (int i = r - 1; i >= 0; i--) {
            strides[i] = s;
            s *= dims[i];
        }
        int total = n * outSpatial;
        ctx.parallelFor(total, FloatData.chunk((long) c * taps * taps), (from, to) -> {
            int[] idx = new int[r * taps];
            double[] wt = new double[r * taps];
            int[] counter = new int[r];
            for (int item = from; item < to; item++) {
                int b = item / outSpatial;
                int o = item % outSpatial;
                int gBase = item * r;
                for (int d = 0; d < r; d++) {
                    // grid component 0 indexes the last spatial axis
                    double g = gv[gBase + (r - 1 - d)];
                    axisTaps(g, dims[d], mode, padding, align, idx, wt, d * taps);
                }
                for (int ch = 0; ch < c; ch++) {
                    int xBase = (b * c + ch) * inSpatial;
                    double acc = 0;
                    java.util.Arrays.fill(counter, 0);
                    while (true) {
                        double w = 1;
                        int off = 0;
                        boolean zero = false;
                        for (int d = 0; d < r; d++) {
                            int k = d * taps + counter[d];
                            if (idx[k] < 0) {
                                zero = true;
                                break;
                            }
                            w *= wt[k];
                            off += idx[k] * strides[d];
                        }
                        if (!zero) {
                            acc += w * xv[xBase + off];
                        }
                        int d = r - 1;
                        while (d >= 0 && ++counter[d] == taps) {
                            counter[d] = 0;
                            d--;
                        }
                        if (d < 0) {
                            break;
                        }
                    }
                    out[(b * c + ch) * outSpatial + o] = acc;
                }
            }
        });
        return new Tensor[] {Values.fromDoubles(x.type(), os, out)};
    }

    /** Fills {@code taps} (index, weight) pairs for one axis; an index of -1 reads as zero padding. */
    private static void axisTaps(double g, int dim, int mode, int padding, boolean align, int[] idx, double[] wt,
                                 int at) {
        double v = align ? (g + 1) / 2 * (dim - 1) : ((g + 1) * dim - 1) / 2;
        double lo = align ? 0 : -0.5;
        double hi = align ? dim - 1 : dim - 0.5;
        if (mode == NEAREST) {
            v = Math.rint(v);
        }
        if (v < lo || v > hi) {
            if (padding == BORDER) {
                v = Math.min(Math.max(v, 0), dim - 1);
            } else if (padding == REFLECTION) {
                v = reflect(v, lo, hi);
            }
        }
        switch (mode) {
            case NEAREST:
                idx[at] = pixel((int) v, dim, padding, lo, hi);
                wt[at] = 1;
                break;
            case LINEAR: {
                double f = Math.floor(v);
                int i0 = (int) f;
                double t = v - f;
                idx[at] = pixel(i0, dim, padding, lo, hi);
                wt[at] = 1 - t;
                idx[at + 1] = pixel(i0 + 1, dim, padding, lo, hi);
                wt[at + 1] = t;
                break;
            }
            default: {
                double f = Math.floor(v);
                int i0 = (int) f;
                double t = v - f;
                double a = -0.75;
                double t1 = t + 1;
                double t2 = 1 - t;
                double t3 = 2 - t;
                wt[at] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;
                wt[at + 1] = ((a + 2) * t - (a + 3)) * t * t + 1;
                wt[at + 2] = ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1;
                wt[at + 3] = ((a * t3 - 5 * a) * t3 + 8 * a) * t3 - 4 * a;
                for (int k = 0; k < 4; k++) {
                    idx[at + k] = pixel(i0 - 1 + k, dim, padding, lo, hi);
                }
                break;
            }
        }
    }

    /** Maps a tap index into the axis by the padding mode, or -1 for a zero. */
    private static int pixel(int i, int dim, int padding, double lo, double hi) {
        if (padding == ZEROS) {
            return i >= 0 && i < dim ? i : -1;
        }
        if (padding == BORDER) {
            return Math.min(Math.max(i, 0), dim - 1);
        }
        int k = (int) reflect(i, lo, hi);
        return Math.min(Math.max(k, 0), dim - 1);
    }

    /** Reflects a coordinate into {@code [lo, hi]} as many times as needed. */
    private static double reflect(double x, double lo, double hi) {
        double range = hi - lo;
        if (range <= 0) {
            return lo < 0 ? 0 : lo;
        }
        if (x < lo) {
            double dx = lo - x;
            long k = (long) (dx / range);
            double rem = dx - k * range;
            return k % 2 == 0 ? lo + rem : hi - rem;
        }
        if (x > hi) {
            double dx = x - hi;
            long k = (long) (dx / range);
            double rem = dx - k * range;
            return k % 2 == 0 ? hi - rem : lo + rem;
        }
        return x;
    }
}
