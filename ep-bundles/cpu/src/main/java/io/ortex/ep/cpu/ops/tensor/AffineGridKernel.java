package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * AffineGrid (opset 20): the sampling grid of an affine transform for GridSample. For 2-D, {@code theta [N, 2, 3]}
 * and {@code size = (N, C, H, W)} give {@code grid [N, H, W, 2]}; for 3-D, {@code theta [N, 3, 4]} and
 * {@code (N, C, D, H, W)} give {@code [N, D, H, W, 3]}. Each output point is {@code theta} applied to the
 * normalized base coordinates {@code (x, y[, z], 1)} in {@code [-1, 1]}: pixel centres
 * ({@code (2i + 1) / size - 1}) by default, the corner pixels' centres at -1 and 1 with {@code align_corners}.
 */
final class AffineGridKernel {
    private AffineGridKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        boolean alignCorners = node.intAttr("align_corners", 0) != 0;
        return (in, ctx) -> {
            Tensor theta = in[0];
            FloatData.requireFloating(theta, "AffineGrid input 'theta'");
            long[] size = Shapes.longs(in[1], "size");
            if (size.length != 4 && size.length != 5) {
                throw new InvalidArgumentException("AffineGrid input 'size' must hold 4 (2-D) or 5 (3-D) values, "
                        + "not " + size.length);
            }
            int dims = size.length - 2;
            long[] ts = theta.shape();
            if (ts.length != 3 || ts[0] != size[0] || ts[1] != dims || ts[2] != dims + 1) {
                throw new InvalidArgumentException("AffineGrid input 'theta' has shape " + Tensor.shapeString(ts)
                        + ", expected [" + size[0] + ", " + dims + ", " + (dims + 1) + "]");
            }
            int n = (int) size[0];
            int d = dims == 3 ? (int) size[2] : 1;
            int h = (int) size[size.length - 2];
            int w = (int) size[size.length - 1];
            double[] xs = base(w, alignCorners);
            double[] ys = base(h, alignCorners);
            double[] zs = base(d, alignCorners);
            long[] os = dims == 3 ? new long[] {n, d, h, w, 3} : new long[] {n, h, w, 2};
            int total = Tensor.checkedElementCount(os);
            double[] t = Values.toDoubles(theta);
            boolean dbl = theta.type() == ElementType.DOUBLE;
            double[] od = dbl ? new double[total] : null;
            float[] of = dbl ? null : new float[total];
            int p = 0;
            int tn = dims * (dims + 1);
            for (int b = 0; b < n; b++) {
                int tb = b * tn;
                for (int k = 0; k < d; k++) {
                    for (int i = 0; i < h; i++) {
                        for (int j = 0; j < w; j++) {
                            for (int r = 0; r < dims; r++) {
                                int row = tb + r * (dims + 1);
                                double v = dims == 3
                                        ? t[row] * xs[j] + t[row + 1] * ys[i] + t[row + 2] * zs[k] + t[row + 3]
                                        : t[row] * xs[j] + t[row + 1] * ys[i] + t[row + 2];
                                if (dbl) {
                                    od[p++] = v;
                                } else {
                                    of[p++] = (float) v;
                                }
                            }
                        }
                    }
                }
            }
            return new Tensor[] {dbl ? Tensor.of(theta.type(), os, od) : Values.fromFloats(theta.type(), os, of)};
        };
    }

    private static double[] base(int count, boolean alignCorners) {
        double[] v = new double[count];
        for (int i = 0; i < count; i++) {
            if (alignCorners) {
                v[i] = count == 1 ? -1 : -1 + 2.0 * i / (count - 1);
            } else {
                v[i] = (2.0 * i + 1) / count - 1;
            }
        }
        return v;
    }
}
