package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * DeformConv (opsets 19 and 22), 2-D: a convolution whose kernel taps are moved by learned offsets.
 * {@code offset [N, offset_group * 2 * kH * kW, oH, oW]} gives, per offset group and tap, the (dy, dx) added to the
 * tap's position; the input is sampled there bilinearly (zero outside the image), multiplied by the optional
 * {@code mask [N, offset_group * kH * kW, oH, oW]}, and convolved with {@code W [M, C / group, kH, kW]} plus the
 * optional bias. Float types (float32 directly, the others through float).
 */
final class DeformConvKernel {
    private DeformConvKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        long[] dilations = node.intsAttr("dilations", new long[] {1, 1});
        long[] strides = node.intsAttr("strides", new long[] {1, 1});
        long[] pads = node.intsAttr("pads", new long[] {0, 0, 0, 0});
        long[] kernelShape = node.intsAttr("kernel_shape", null);
        int group = (int) node.intAttr("group", 1);
        int offsetGroups = (int) node.intAttr("offset_group", 1);
        if (dilations.length != 2 || strides.length != 2 || pads.length != 4
                || (kernelShape != null && kernelShape.length != 2)) {
            throw new NotImplementedException("DeformConv is implemented for 2-D inputs only (attributes "
                    + "'dilations', 'strides', 'pads', 'kernel_shape')");
        }
        return (in, ctx) -> {
            Tensor x = in[0];
            Tensor w = in[1];
            FloatData.requireFloating(x, "DeformConv input 'X'");
            long[] xs = x.shape();
            long[] ws = w.shape();
            if (xs.length != 4 || ws.length != 4) {
                throw new NotImplementedException("DeformConv is implemented for 2-D inputs only, 'X' has shape "
                        + Tensor.shapeString(xs));
            }
            int n = (int) xs[0];
            int c = (int) xs[1];
            int h = (int) xs[2];
            int wd = (int) xs[3];
            int m = (int) ws[0];
            int kh = (int) (kernelShape != null ? kernelShape[0] : ws[2]);
            int kw = (int) (kernelShape != null ? kernelShape[1] : ws[3]);
            if (c % group != 0 || m % group != 0 || ws[1] != c / group || c % offsetGroups != 0) {
                throw new InvalidArgumentException("DeformConv: 'W' " + Tensor.shapeString(ws) + " does not fit "
                        + c + " channels in " + group + " groups and " + offsetGroups + " offset groups");
            }
            int oh = (int) ((h + pads[0] + pads[2] - (dilations[0] * (kh - 1) + 1)) / strides[0] + 1);
            int ow = (int) ((wd + pads[1] + pads[3] - (dilations[1] * (kw - 1) + 1)) / strides[1] + 1);
            int taps = kh * kw;
            int plane = oh * ow;
            long[] offShape = in[2].shape();
            if (offShape.length != 4 || offShape[1] != 2L * offsetGroups * taps || offShape[2] != oh
                    || offShape[3] != ow) {
                throw new InvalidArgumentException("DeformConv input 'offset' has shape "
                        + Tensor.shapeString(offShape) + ", expected [" + n + ", " + (2 * offsetGroups * taps)
                        + ", " + oh + ", " + ow + "]");
            }
            float[] xv = Values.toFloats(x);
            float[] wv = Values.toFloats(w);
            float[] off = Values.toFloats(in[2]);
            Tensor biasT = Shapes.optional(in, 3);
            Tensor maskT = Shapes.optional(in, 4);
            float[] bias = biasT == null ? null : Values.toFloats(biasT);
            float[] mask = maskT == null ? null : Values.toFloats(maskT);
            long[] os = {n, m, oh, ow};
            float[] y = new float[Tensor.checkedElementCount(os)];
            int cg = c / group;
            int mg = m / group;
            int chPerOffset = c / offsetGroups;
            int rows = c * taps;
            ctx.parallelFor(n, 1, (from, to) -> {
                float[] col = new float[rows * plane];
                for (int b = from; b < to; b++) {
                    for (int ch = 0; ch < c; ch++) {
                        int g = ch / chPerOffset;
                        int xBase = (b * c + ch) * h * wd;
                        for (int i = 0; i < kh; i++) {
                            for (int j = 0; j < kw; j++) {
                                int tap = i * kw + j;
                                int offBase = (b * 2 * offsetGroups * taps + g * 2 * taps + 2 * tap) * plane;
                                int maskBase = (b * offsetGroups * taps + g * taps + tap) * plane;
                                int colBase = (ch * taps + tap) * plane;
                                for (int p = 0; p < oh; p++) {
                                    for (int q = 0; q < ow; q++) {
                                        int at = p * ow + q;
                                        double py = p * strides[0] - pads[0] + i * dilations[0] + off[offBase + at];
                                        double px = q * strides[1] - pads[1] + j * dilations[1]
                                                + off[offBase + plane + at];
                                        float v = sample(xv, xBase, h, wd, py, px);
                                        col[colBase + at] = mask == null ? v : v * mask[maskBase + at];
                                    }
                                }
                            }
                        }
                    }
                    for (int g = 0; g < group; g++) {
                        for (int oc = g * mg; oc < (g + 1) * mg; oc++) {
                            int yBase = (b * m + oc) * plane;
                            float bv = bias == null ? 0 : bias[oc];
                            for (int at = 0; at < plane; at++) {
                                y[yBase + at] = bv;
                            }
                            int wBase = oc * cg * taps;
                            for (int r = 0; r < cg * taps; r++) {
                                float wr = wv[wBase + r];
                                int colBase = (g * cg * taps + r) * plane;
                                for (int at = 0; at < plane; at++) {
                                    y[yBase + at] += wr * col[colBase + at];
                                }
                            }
                        }
                    }
                }
            });
            return new Tensor[] {x.type() == ElementType.FLOAT ? Tensor.of(x.type(), os, y)
                    : Values.fromFloats(x.type(), os, y)};
        };
    }

    /** Bilinear sample of one plane at (py, px); corners outside the image count as zero. */
    private static float sample(float[] x, int base, int h, int w, double py, double px) {
        if (py <= -1 || py >= h || px <= -1 || px >= w) {
            return 0;
        }
        int y0 = (int) Math.floor(py);
        int x0 = (int) Math.floor(px);
        double ly = py - y0;
        double lx = px - x0;
        double v = 0;
        if (y0 >= 0 && x0 >= 0) {
            v += (1 - ly) * (1 - lx) * x[base + y0 * w + x0];
        }
        if (y0 >= 0 && x0 + 1 < w) {
            v += (1 - ly) * lx * x[base + y0 * w + x0 + 1];
        }
        if (y0 + 1 < h && x0 >= 0) {
            v += ly * (1 - lx) * x[base + (y0 + 1) * w + x0];
        }
        if (y0 + 1 < h && x0 + 1 < w) {
            v += ly * lx * x[base + (y0 + 1) * w + x0 + 1];
        }
        return (float) v;
    }
}
