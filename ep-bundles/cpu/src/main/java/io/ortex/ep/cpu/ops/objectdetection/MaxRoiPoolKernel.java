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
 * MaxRoiPool (opset 1): max-pools each region {@code rois[r] = (batch, x1, y1, x2, y2)}, its corners scaled by
 * {@code spatial_scale} and rounded to pixels (both ends inclusive), into a {@code pooled_shape} grid of bins with
 * floor/ceil edges; an empty bin gives 0. Output {@code [R, C, pooled_h, pooled_w]}.
 */
final class MaxRoiPoolKernel {
    private MaxRoiPoolKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        long[] pooled = Shapes.requiredInts(node, "pooled_shape");
        if (pooled.length != 2 || pooled[0] < 1 || pooled[1] < 1) {
            throw new InvalidModelException("MaxRoiPool attribute 'pooled_shape' must hold two positive sizes");
        }
        float scale = node.floatAttr("spatial_scale", 1f);
        int outH = (int) pooled[0];
        int outW = (int) pooled[1];
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "MaxRoiPool input 'X'");
            long[] xs = x.shape();
            long[] rs = in[1].shape();
            if (xs.length != 4 || rs.length != 2 || rs[1] != 5) {
                throw new InvalidArgumentException("MaxRoiPool needs 'X' [N, C, H, W] and 'rois' [R, 5], got "
                        + Tensor.shapeString(xs) + " and " + Tensor.shapeString(rs));
            }
            int n = (int) xs[0];
            int c = (int) xs[1];
            int h = (int) xs[2];
            int w = (int) xs[3];
            int rois = (int) rs[0];
            float[] xv = Values.toFloats(x);
            float[] roi = Values.toFloats(in[1]);
            long[] os = {rois, c, outH, outW};
            float[] y = new float[Tensor.checkedElementCount(os)];
            for (int r = 0; r < rois; r++) {
                int b = (int) roi[5 * r];
                if (b < 0 || b >= n) {
                    throw new InvalidArgumentException("MaxRoiPool input 'rois' names image " + b + " of " + n);
                }
                int x1 = Math.round(roi[5 * r + 1] * scale);
                int y1 = Math.round(roi[5 * r + 2] * scale);
                int x2 = Math.round(roi[5 * r + 3] * scale);
                int y2 = Math.round(roi[5 * r + 4] * scale);
                double binH = Math.max(y2 - y1 + 1, 1) / (double) outH;
                double binW = Math.max(x2 - x1 + 1, 1) / (double) outW;
                for (int ch = 0; ch < c; ch++) {
                    int base = (b * c + ch) * h * w;
                    int out = (r * c + ch) * outH * outW;
                    for (int ph = 0; ph < outH; ph++) {
                        int hs = clamp((int) Math.floor(ph * binH) + y1, h);
                        int he = clamp((int) Math.ceil((ph + 1) * binH) + y1, h);
                        for (int pw = 0; pw < outW; pw++) {
                            int ws = clamp((int) Math.floor(pw * binW) + x1, w);
                            int we = clamp((int) Math.ceil((pw + 1) * binW) + x1, w);
                            float best = he <= hs || we <= ws ? 0 : Float.NEGATIVE_INFINITY;
                            for (int i = hs; i < he; i++) {
                                for (int j = ws; j < we; j++) {
                                    best = Math.max(best, xv[base + i * w + j]);
                                }
                            }
                            y[out + ph * outW + pw] = best;
                        }
                    }
                }
            }
            return new Tensor[] {x.type() == ElementType.FLOAT ? Tensor.of(x.type(), os, y)
                    : Values.fromFloats(x.type(), os, y)};
        };
    }

    private static int clamp(int v, int size) {
        return Math.min(Math.max(v, 0), size);
    }
}
