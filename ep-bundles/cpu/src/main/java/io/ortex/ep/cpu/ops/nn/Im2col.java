package io.ortex.ep.cpu.ops.nn;

import io.ortex.ep.cpu.ops.math.Sgemm;
import java.util.Arrays;

/**
 * Lowers a convolution to a matrix product: gathers, for a run of output positions, the input values every kernel
 * tap reads (zero where the tap falls in the padding), one array per (input channel, tap) row, in the layout
 * {@link Sgemm} reads as its packed right-hand operand. Stateless.
 */
final class Im2col {
    private Im2col() {
    }

    /**
     * Fills {@code rows[r][0..w)} for every (channel, tap) row {@code r} and output positions {@code [p0, p0+w)}.
     *
     * @param x the input
     * @param xOff the index of the first input channel's first element
     * @param channels the number of input channels to gather
     * @param g the geometry
     * @param p0 the first output position (flat over the output's spatial axes)
     * @param w the number of output positions
     * @param rows the destination rows, {@code channels * g.kernelSize()} of them, each at least {@code w} long
     */
    static void gather(float[] x, int xOff, int channels, Window g, int p0, int w, float[][] rows) {
        int inPlane = g.inSize();
        int out1 = g.out[1];
        int out2 = g.out[2];
        int r = 0;
        for (int ci = 0; ci < channels; ci++) {
            int xc = xOff + ci * inPlane;
            for (int kd = 0; kd < g.k[0]; kd++) {
                for (int kh = 0; kh < g.k[1]; kh++) {
                    for (int kw = 0; kw < g.k[2]; kw++) {
                        fillRow(x, xc, g, kd, kh, kw, p0, w, out1, out2, rows[r++]);
                    }
                }
            }
        }
    }

    private static void fillRow(float[] x, int xc, Window g, int kd, int kh, int kw, int p0, int w, int out1,
            int out2, float[] row) {
        int lo2 = g.firstValid(2, kw);
        int hi2 = g.endValid(2, kw);
        int s2 = g.s[2];
        int shift2 = kw * g.d[2] - g.pb[2];
        int j = 0;
        int pos = p0;
        int plane = out1 * out2;
        while (j < w) {
            int od = pos / plane;
            int rem = pos - od * plane;
            int oh = rem / out2;
            int ow = rem - oh * out2;
            int len = Math.min(w - j, out2 - ow);
            int id = od * g.s[0] - g.pb[0] + kd * g.d[0];
            int ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
                Arrays.fill(row, j, j + len, 0f);
            } else {
                int base = xc + (id * g.in[1] + ih) * g.in[2] + shift2;
                int lo = Math.max(ow, lo2);
                int hi = Math.min(ow + len, hi2);
                if (hi <= lo) {
                    Arrays.fill(row, j, j + len, 0f);
                } else {
                    int jl = j + lo - ow;
                    int jh = j + hi - ow;
                    Arrays.fill(row, j, jl, 0f);
                    if (s2 == 1) {
                        System.arraycopy(x, base + lo, row, jl, hi - lo);
                    } else {
                        for (int o = lo, t = jl; o < hi; o++, t++) {
                            row[t] = x[base + o * s2];
                        }
                    }
                    Arrays.fill(row, jh, j + len, 0f);
                }
            }
            j += len;
            pos += len;
        }
    }
}
