package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Activation;
import io.ortex.ep.cpu.linalg.VectorSupport;
import java.util.Arrays;
import java.util.List;

/**
 * Depthwise convolution (one filter per channel: {@code group == C == M}) on one or two spatial axes, computed
 * directly rather than as a matrix product, in parallel over channels. Each channel's input rows are first copied
 * into scratch with the left and right padding written out as zeros and, for a stride {@code s} along the width,
 * split into {@code s} phases (columns {@code s i + phase}), so that every kernel tap reads a contiguous run for a
 * run of outputs: the inner loop is then a vector multiply-add over a row with no bounds checks. Rows above and below
 * the input (the height padding) are skipped. The bias, the activation and the channel operations are applied to each
 * output row while it is in cache. Stateless.
 */
final class DepthwiseConv {
    /** The widest stride along the width that the direct kernel takes. */
    static final int MAX_STRIDE = 4;

    private DepthwiseConv() {
    }

    /**
     * Computes the convolution.
     *
     * @param x the input, {@code n x c} planes
     * @param n the images
     * @param c the channels
     * @param g the geometry: one or two spatial axes (lifted to three), a width stride up to {@link #MAX_STRIDE}
     * @param w the filters, one plane of taps per channel
     * @param bias one value per channel, or {@code null}
     * @param act the activation
     * @param after the channel operations after it
     * @param y the output, {@code n x c} planes
     * @param ctx the intra-op threads and scratch
     */
    static void run(float[] x, int n, int c, Window g, float[] w, float[] bias, Activation act,
            List<ChannelOps.Step> after, float[] y, KernelContext ctx) {
        int h = g.in[1];
        int wIn = g.in[2];
        int oh = g.out[1];
        int ow = g.out[2];
        int kh = g.k[1];
        int kw = g.k[2];
        int sw = g.s[2];
        int dw = g.d[2];
        int pw = g.pb[2];
        if (oh == 0 || ow == 0) {
            return;
        }
        // a padded row must hold what the last output reads and the whole input row
        long wpl = Math.max((long) pw + wIn, (long) (ow - 1) * sw + (long) (kw - 1) * dw + 1);
        if (wpl > Integer.MAX_VALUE - 64) {
            throw new InvalidArgumentException("Conv pads or dilations too large: a padded input row would have "
                    + wpl + " values");
        }
        int wp = (int) wpl;
        if ((long) sw * h * ((wp + sw - 1) / sw) > Integer.MAX_VALUE - 64) {
            throw new InvalidArgumentException("Conv pads or dilations too large: a padded input row of " + wp
                    + " values over " + h + " rows does not fit in memory");
        }
        int wh = (wp + sw - 1) / sw;
        int[] tapOff = new int[kw];
        for (int t = 0; t < kw; t++) {
            int j = t * dw;
            tapOff[t] = (j % sw) * h * wh + j / sw;
        }
        int plane = h * wIn;
        int outPlane = oh * ow;
        boolean vector = VectorSupport.enabled();
        int minChunk = Math.max(1, 16384 / Math.max(1, outPlane * kh * kw));
        ctx.parallelFor(n * c, minChunk, (from, to) -> {
            // slack past the last row for the vector rows' last loads; it only feeds outputs that are dropped
            float[] buf = ctx.allocateUninitialized(ElementType.FLOAT, (long) sw * h * wh
                    + (vector ? VectorDepthwiseConv.SLACK : 0)).floats();
            int[] rowBase = new int[kh];
            int[] rowTap = new int[kh];
            for (int p = from; p < to; p++) {
                int ch = p % c;
                spread(x, p * plane, h, wIn, pw, sw, wh, buf);
                float b = bias == null ? 0f : bias[ch];
                for (int r = 0; r < oh; r++) {
                    int rows = 0;
                    for (int t = 0; t < kh; t++) {
                        int ih = r * g.s[1] - g.pb[1] + t * g.d[1];
                        if (ih >= 0 && ih < h) {
                            rowBase[rows] = ih * wh;
                            rowTap[rows++] = (ch * kh + t) * kw;
                        }
                    }
                    int yo = p * outPlane + r * ow;
                    if (vector) {
                        VectorDepthwiseConv.row(buf, rowBase, rowTap, rows, tapOff, w, kw, b, y, yo, ow);
                    } else {
                        row(buf, rowBase, rowTap, rows, tapOff, w, kw, b, y, yo, ow);
                    }
                    act.apply(y, yo, ow);
                    ChannelOps.apply(after, y, yo, ow, ch);
                }
            }
        });
    }

    /**
     * Copies one channel's rows into the scratch: row {@code ih} of phase {@code f} at {@code (f * h + ih) * wh}
     * holds the padded row's columns {@code sw * i + f}, zero outside the input.
     */
    static void spread(float[] x, int xo, int h, int wIn, int pw, int sw, int wh, float[] buf) {
        for (int ih = 0; ih < h; ih++) {
            int src = xo + ih * wIn;
            if (sw == 1) {
                int dst = ih * wh;
                Arrays.fill(buf, dst, dst + pw, 0f);
                System.arraycopy(x, src, buf, dst + pw, wIn);
                Arrays.fill(buf, dst + pw + wIn, dst + wh, 0f);
                continue;
            }
            for (int f = 0; f < sw; f++) {
                int dst = (f * h + ih) * wh;
                // padded column j = sw * i + f is input column j - pw
                int lo = Math.max(0, (pw - f + sw - 1) / sw);
                int hi = Math.min(wh, (pw + wIn - f + sw - 1) / sw);
                if (hi < lo) {
                    hi = lo;
                }
                Arrays.fill(buf, dst, dst + lo, 0f);
                for (int i = lo, col = sw * lo + f - pw; i < hi; i++, col += sw) {
                    buf[dst + i] = x[src + col];
                }
                Arrays.fill(buf, dst + hi, dst + wh, 0f);
            }
        }
    }

    /** One output row in plain Java. */
    private static void row(float[] buf, int[] rowBase, int[] rowTap, int rows, int[] tapOff, float[] w, int kw,
            float bias, float[] y, int yo, int ow) {
        for (int i = 0; i < ow; i++) {
            float s = bias;
            for (int r = 0; r < rows; r++) {
                int base = rowBase[r] + i;
                int wo = rowTap[r];
                for (int t = 0; t < kw; t++) {
                    s += w[wo + t] * buf[base + tapOff[t]];
                }
            }
            y[yo + i] = s;
        }
    }
}
