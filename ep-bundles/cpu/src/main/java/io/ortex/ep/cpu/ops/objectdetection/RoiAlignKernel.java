package io.ortex.ep.cpu.ops.objectdetection;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * RoiAlign (opsets 10, 16 and 22): pools each region {@code rois[r] = (x1, y1, x2, y2)} (scaled by
 * {@code spatial_scale}) of image {@code batch_indices[r]} into {@code output_height x output_width} bins, each the
 * average ({@code mode avg}) or maximum ({@code mode max}) of {@code sampling_ratio^2} bilinear samples (an adaptive
 * {@code ceil(roi size / bins)} per axis when it is 0). {@code coordinate_transformation_mode half_pixel} (the
 * default from opset 16) shifts the region by half a pixel; {@code output_half_pixel} (the only behaviour of opset
 * 10) does not, and makes regions at least one pixel wide. The max mode takes, per sample, the largest of the four
 * weighted corner values, as ONNX Runtime does.
 */
final class RoiAlignKernel {
    private RoiAlignKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @param defaultCoordinateMode the default of {@code coordinate_transformation_mode}:
     *     {@code output_half_pixel} in opset 10, {@code half_pixel} from 16
     * @return the kernel
     */
    static CpuKernel create(NodeView node, String defaultCoordinateMode) {
        String mode = node.stringAttr("mode", "avg");
        if (!mode.equals("avg") && !mode.equals("max")) {
            throw new InvalidModelException("RoiAlign attribute 'mode' must be 'avg' or 'max', not '" + mode + "'");
        }
        boolean max = mode.equals("max");
        int outH = (int) node.intAttr("output_height", 1);
        int outW = (int) node.intAttr("output_width", 1);
        int ratio = (int) node.intAttr("sampling_ratio", 0);
        float scale = node.floatAttr("spatial_scale", 1f);
        String ctm = node.stringAttr("coordinate_transformation_mode", defaultCoordinateMode);
        if (!ctm.equals("half_pixel") && !ctm.equals("output_half_pixel")) {
            throw new InvalidModelException("RoiAlign attribute 'coordinate_transformation_mode' must be 'half_pixel' "
                    + "or 'output_half_pixel', not '" + ctm + "'");
        }
        boolean halfPixel = ctm.equals("half_pixel");
        if (outH < 1 || outW < 1 || ratio < 0) {
            throw new InvalidModelException("RoiAlign attributes 'output_height' " + outH + ", 'output_width' " + outW
                    + " and 'sampling_ratio' " + ratio + " must be positive (the ratio may be 0)");
        }
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "RoiAlign input 'X'");
            long[] xs = x.shape();
            long[] rs = in[1].shape();
            if (xs.length != 4 || rs.length != 2 || rs[1] != 4 || in[2].size() != rs[0]) {
                throw new InvalidArgumentException("RoiAlign needs 'X' [N, C, H, W], 'rois' [R, 4] and "
                        + "'batch_indices' [R], got " + Tensor.shapeString(xs) + ", " + Tensor.shapeString(rs)
                        + " and " + Tensor.shapeString(in[2].shape()));
            }
            int n = (int) xs[0];
            int c = (int) xs[1];
            int h = (int) xs[2];
            int w = (int) xs[3];
            int rois = (int) rs[0];
            float[] xv = Values.toFloats(x);
            float[] roi = Values.toFloats(in[1]);
            long[] batch = Shapes.longs(in[2], "batch_indices");
            long[] os = {rois, c, outH, outW};
            float[] y = new float[Tensor.checkedElementCount(os)];
            double offset = halfPixel ? 0.5 : 0;
            ctx.parallelFor(rois, 1, (from, to) -> {
                for (int r = from; r < to; r++) {
                    long b = batch[r];
                    if (b < 0 || b >= n) {
                        throw new InvalidArgumentException("RoiAlign input 'batch_indices' holds " + b
                                + ", out of range for " + n + " images");
                    }
                    double x1 = roi[4 * r] * scale - offset;
                    double y1 = roi[4 * r + 1] * scale - offset;
                    double roiW = roi[4 * r + 2] * scale - offset - x1;
                    double roiH = roi[4 * r + 3] * scale - offset - y1;
                    if (!halfPixel) {
                        roiW = Math.max(roiW, 1);
                        roiH = Math.max(roiH, 1);
                    }
                    double binH = roiH / outH;
                    double binW = roiW / outW;
                    int gridH = ratio > 0 ? ratio : (int) Math.ceil(roiH / outH);
                    int gridW = ratio > 0 ? ratio : (int) Math.ceil(roiW / outW);
                    int count = Math.max(gridH * gridW, 1);
                    for (int ch = 0; ch < c; ch++) {
                        int base = (int) ((b * c + ch) * h * w);
                        int out = ((r * c + ch) * outH) * outW;
                        for (int ph = 0; ph < outH; ph++) {
                            for (int pw = 0; pw < outW; pw++) {
                                double acc = max ? Double.NEGATIVE_INFINITY : 0;
                                for (int iy = 0; iy < gridH; iy++) {
                                    double sy = y1 + ph * binH + (iy + 0.5) * binH / gridH;
                                    for (int ix = 0; ix < gridW; ix++) {
                                        double sx = x1 + pw * binW + (ix + 0.5) * binW / gridW;
                                        double v = sample(xv, base, h, w, sy, sx, max);
                                        acc = max ? Math.max(acc, v) : acc + v;
                                    }
                                }
                                y[out + ph * outW + pw] = (float) (max ? (gridH * gridW == 0 ? 0 : acc)
                                        : acc / count);
                            }
                        }
                    }
                }
            });
            return new Tensor[] {x.type() == ElementType.FLOAT ? Tensor.of(x.type(), os, y)
                    : Values.fromFloats(x.type(), os, y)};
        };
    }

    /**
     * One bilinear sample: zero beyond a pixel outside the image, clamped to the border inside that margin; in max
     * mode the largest weighted corner instead of their sum.
     */
    private static double sample(float[] x, int base, int h, int w, double sy, double sx, boolean max) {
        if (sy < -1 || sy > h || sx < -1 || sx > w) {
            return 0;
        }
        double py = Math.max(sy, 0);
        double px = Math.max(sx, 0);
        int y0 = (int) py;
        int x0 = (int) px;
        int y1;
        int x1;
        if (y0 >= h - 1) {
            y0 = y1 = h - 1;
            py = y0;
        } else {
            y1 = y0 + 1;
        }
        if (x0 >= w - 1) {
            x0 = x1 = w - 1;
            px = x0;
        } else {
            x1 = x0 + 1;
        }
        double ly = py - y0;
        double lx = px - x0;
        double a = (1 - ly) * (1 - lx) * x[base + y0 * w + x0];
        double b = (1 - ly) * lx * x[base + y0 * w + x1];
        double c = ly * (1 - lx) * x[base + y1 * w + x0];
        double d = ly * lx * x[base + y1 * w + x1];
        return max ? Math.max(Math.max(a, b), Math.max(c, d)) : a + b + c + d;
    }
}
