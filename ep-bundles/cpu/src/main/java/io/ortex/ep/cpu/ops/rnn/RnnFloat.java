package io.ortex.ep.cpu.ops.rnn;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Elementwise;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;

/**
 * The float32 recurrences of LSTM, GRU and RNN (float16 and bfloat16 go through it too). Weights are packed once
 * per direction as transposed matrices ({@code [input][gates * hidden]}, {@code [hidden][gates * hidden]}) so
 * that every product is a run of vectorizable {@code y[j] += x * m[k][j]} loops, with the two biases summed
 * (except GRU's recurrent hidden-gate bias, which {@code linear_before_reset} needs apart). Each (direction, batch
 * entry) pair is an independent task. {@link RnnDouble} is the same code in double precision. Stateless.
 */
final class RnnFloat {
    private RnnFloat() {
    }

    /** The packed weights of every direction. Immutable once built. */
    static final class Weights {
        final int input;
        final int hidden;
        final float[][] wt;
        final float[][] rt;
        final float[][] bias;
        final float[][] rbh;
        final float[][] peep;

        private Weights(int input, int hidden, int dirs) {
            this.input = input;
            this.hidden = hidden;
            this.wt = new float[dirs][];
            this.rt = new float[dirs][];
            this.bias = new float[dirs][];
            this.rbh = new float[dirs][];
            this.peep = new float[dirs][];
        }
    }

    /**
     * Packs the weights after {@link RecurrentShapes#checkWeights} accepted them.
     *
     * @param s the spec
     * @param hidden the hidden size
     * @param w W, {@code [dirs, gates * hidden, input]}
     * @param r R, {@code [dirs, gates * hidden, hidden]}
     * @param b B, {@code [dirs, 2 * gates * hidden]}, or null
     * @param p P (LSTM), {@code [dirs, 3 * hidden]}, or null
     * @return the packed weights
     */
    static Weights pack(RecurrentSpec s, int hidden, Tensor w, Tensor r, Tensor b, Tensor p) {
        int dirs = s.directions();
        int gh = s.kind().gates * hidden;
        int input = (int) w.dim(2);
        Weights out = new Weights(input, hidden, dirs);
        float[] wv = Values.toFloats(w);
        float[] rv = Values.toFloats(r);
        float[] bv = b == null ? null : Values.toFloats(b);
        float[] pv = p == null ? null : Values.toFloats(p);
        for (int d = 0; d < dirs; d++) {
            out.wt[d] = transpose(wv, d * gh * input, gh, input);
            out.rt[d] = transpose(rv, d * gh * hidden, gh, hidden);
            float[] bias = new float[gh];
            float[] rbh = new float[hidden];
            if (bv != null) {
                int base = d * 2 * gh;
                boolean gru = s.kind() == RecurrentSpec.Kind.GRU;
                for (int j = 0; j < gh; j++) {
                    boolean apart = gru && j >= 2 * hidden;
                    bias[j] = apart ? bv[base + j] : bv[base + j] + bv[base + gh + j];
                    if (apart) {
                        rbh[j - 2 * hidden] = bv[base + gh + j];
                    }
                }
            }
            out.bias[d] = bias;
            out.rbh[d] = rbh;
            if (pv != null) {
                float[] peep = new float[3 * hidden];
                System.arraycopy(pv, d * 3 * hidden, peep, 0, 3 * hidden);
                out.peep[d] = peep;
            }
        }
        return out;
    }

    /** Transposes the {@code rows x cols} block at {@code off} into a new {@code cols x rows} array. */
    private static float[] transpose(float[] m, int off, int rows, int cols) {
        float[] t = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            int src = off + i * cols;
            for (int k = 0; k < cols; k++) {
                t[k * rows + i] = m[src + k];
            }
        }
        return t;
    }

    /**
     * Runs the recurrence over the whole sequence and makes the requested outputs.
     *
     * @param s the spec
     * @param wts the packed weights
     * @param geo the run's shapes
     * @param x the input X
     * @param lens the per-batch sequence lengths, or null for the full length
     * @param initH initial_h, or null for zeros
     * @param initC initial_c (LSTM), or null for zeros
     * @param type the element type of the outputs
     * @param ctx the kernel context
     * @return Y, Y_h and (LSTM) Y_c
     */
    static Tensor[] run(RecurrentSpec s, Weights wts, RecurrentShapes geo, Tensor x, int[] lens, Tensor initH,
            Tensor initC, ElementType type, KernelContext ctx) {
        int batch = geo.batch();
        int seq = geo.seq();
        int dirs = s.directions();
        int hidden = wts.hidden;
        float[] xv = Values.toFloats(x);
        float[] h0 = initH == null ? null : Values.toFloats(initH);
        float[] c0 = initC == null ? null : Values.toFloats(initC);
        float[] y = new float[seq * dirs * batch * hidden];
        float[] yh = new float[dirs * batch * hidden];
        float[] yc = s.kind() == RecurrentSpec.Kind.LSTM ? new float[dirs * batch * hidden] : null;
        ctx.parallelFor(dirs * batch, 1, (from, to) -> {
            for (int task = from; task < to; task++) {
                sequence(s, wts, geo, task / batch, task % batch, xv, lens, h0, c0, y, yh, yc);
            }
        });
        return new Tensor[] {WorkingArrays.fromFloats(type, geo.yShape(), y),
            WorkingArrays.fromFloats(type, geo.stateShape(), yh),
            yc == null ? null : WorkingArrays.fromFloats(type, geo.stateShape(), yc)};
    }

    /** Runs one direction for one batch entry. */
    private static void sequence(RecurrentSpec s, Weights wts, RecurrentShapes geo, int d, int b, float[] xv,
            int[] lens, float[] h0, float[] c0, float[] y, float[] yh, float[] yc) {
        int hidden = wts.hidden;
        int gh = s.kind().gates * hidden;
        int input = wts.input;
        float[] h = new float[hidden];
        float[] c = new float[hidden];
        int stateOff = geo.stateOffset(d, b);
        if (h0 != null) {
            System.arraycopy(h0, stateOff, h, 0, hidden);
        }
        if (c0 != null) {
            System.arraycopy(c0, stateOff, c, 0, hidden);
        }
        float[] g = new float[gh];
        float[] tmp = new float[hidden];
        int len = lens == null ? geo.seq() : lens[b];
        boolean reverse = s.reverse(d);
        int f0 = d * s.functionsPerDirection();
        float[] wt = wts.wt[d];
        float[] rt = wts.rt[d];
        for (int step = 0; step < len; step++) {
            int t = reverse ? len - 1 - step : step;
            System.arraycopy(wts.bias[d], 0, g, 0, gh);
            axpyRows(xv, geo.xOffset(t, b), input, wt, gh, 0, gh, g, 0);
            switch (s.kind()) {
                case LSTM:
                    axpyRows(h, 0, hidden, rt, gh, 0, gh, g, 0);
                    lstmCell(s, f0, hidden, g, c, h, wts.peep[d]);
                    break;
                case GRU:
                    axpyRows(h, 0, hidden, rt, gh, 0, 2 * hidden, g, 0);
                    gruCell(s, f0, hidden, g, h, tmp, rt, wts.rbh[d]);
                    break;
                default:
                    axpyRows(h, 0, hidden, rt, gh, 0, gh, g, 0);
                    clip(g, 0, hidden, s.clip());
                    RnnActivations.apply(s.fns()[f0], s.alphas()[f0], s.betas()[f0], g, 0, hidden);
                    System.arraycopy(g, 0, h, 0, hidden);
                    break;
            }
            System.arraycopy(h, 0, y, geo.yOffset(t, d, b), hidden);
        }
        System.arraycopy(h, 0, yh, stateOff, hidden);
        if (yc != null) {
            System.arraycopy(c, 0, yc, stateOff, hidden);
        }
    }

    /** One LSTM step on the gate sums {@code g} (order i, o, f, c), updating {@code c} and {@code h}. */
    private static void lstmCell(RecurrentSpec s, int f0, int n, float[] g, float[] c, float[] h, float[] p) {
        int io = 0;
        int oo = n;
        int fo = 2 * n;
        int co = 3 * n;
        if (p != null) {
            for (int j = 0; j < n; j++) {
                g[io + j] += p[j] * c[j];
                g[fo + j] += p[2 * n + j] * c[j];
            }
        }
        float clip = s.clip();
        clip(g, io, n, clip);
        clip(g, fo, 2 * n, clip);
        int fa = s.fns()[f0];
        RnnActivations.apply(fa, s.alphas()[f0], s.betas()[f0], g, fo, n);
        if (s.inputForget()) {
            for (int j = 0; j < n; j++) {
                g[io + j] = 1 - g[fo + j];
            }
        } else {
            RnnActivations.apply(fa, s.alphas()[f0], s.betas()[f0], g, io, n);
        }
        RnnActivations.apply(s.fns()[f0 + 1], s.alphas()[f0 + 1], s.betas()[f0 + 1], g, co, n);
        for (int j = 0; j < n; j++) {
            c[j] = g[fo + j] * c[j] + g[io + j] * g[co + j];
        }
        if (p != null) {
            for (int j = 0; j < n; j++) {
                g[oo + j] += p[n + j] * c[j];
            }
        }
        clip(g, oo, n, clip);
        RnnActivations.apply(fa, s.alphas()[f0], s.betas()[f0], g, oo, n);
        System.arraycopy(c, 0, h, 0, n);
        RnnActivations.apply(s.fns()[f0 + 2], s.alphas()[f0 + 2], s.betas()[f0 + 2], h, 0, n);
        for (int j = 0; j < n; j++) {
            h[j] *= g[oo + j];
        }
    }

    /**
     * One GRU step: {@code g} holds the z and r sums complete and the input part of the hidden gate; the
     * recurrent part of the hidden gate is added here, before or after the reset gate.
     */
    private static void gruCell(RecurrentSpec s, int f0, int n, float[] g, float[] h, float[] tmp, float[] rt,
            float[] rbh) {
        int gh = 3 * n;
        float clip = s.clip();
        clip(g, 0, 2 * n, clip);
        RnnActivations.apply(s.fns()[f0], s.alphas()[f0], s.betas()[f0], g, 0, 2 * n);
        int ho = 2 * n;
        if (s.linearBeforeReset()) {
            System.arraycopy(rbh, 0, tmp, 0, n);
            axpyRows(h, 0, n, rt, gh, ho, n, tmp, 0);
            for (int j = 0; j < n; j++) {
                g[ho + j] += g[n + j] * tmp[j];
            }
        } else {
            for (int j = 0; j < n; j++) {
                tmp[j] = g[n + j] * h[j];
                g[ho + j] += rbh[j];
            }
            axpyRows(tmp, 0, n, rt, gh, ho, n, g, ho);
        }
        clip(g, ho, n, clip);
        RnnActivations.apply(s.fns()[f0 + 1], s.alphas()[f0 + 1], s.betas()[f0 + 1], g, ho, n);
        for (int j = 0; j < n; j++) {
            float z = g[j];
            h[j] = (1 - z) * g[ho + j] + z * h[j];
        }
    }

    /** {@code y[yOff + j] += sum_k x[xOff + k] * m[k * ld + col0 + j]} for {@code j < width}. */
    private static void axpyRows(float[] x, int xOff, int k, float[] m, int ld, int col0, int width, float[] y,
            int yOff) {
        for (int kk = 0; kk < k; kk++) {
            float xv = x[xOff + kk];
            if (xv == 0f) {
                continue;
            }
            Elementwise.axpy(xv, m, kk * ld + col0, y, yOff, width);
        }
    }

    private static void clip(float[] a, int off, int len, float clip) {
        if (clip == Float.POSITIVE_INFINITY) {
            return;
        }
        for (int i = off; i < off + len; i++) {
            a[i] = Math.max(-clip, Math.min(clip, a[i]));
        }
    }
}
