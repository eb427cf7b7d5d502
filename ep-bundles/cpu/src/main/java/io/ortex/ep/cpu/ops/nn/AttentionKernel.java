package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.Arrays;

/**
 * Attention (opsets 23 and 24): scaled dot-product attention over Q, K, V given as {@code (B, heads, S, head_size)}
 * or as {@code (B, S, heads * head_size)} with {@code q_num_heads} and {@code kv_num_heads}. Keys and values are
 * appended to {@code past_key}/{@code past_value} (outputs present_key/present_value); query heads share key/value
 * heads in groups (GQA). Scores are {@code scale * Q.K} (default scale 1/sqrt(head_size)), soft-capped with
 * {@code softcap * tanh(s / softcap)} when {@code softcap > 0}, then biased by the mask (bool: false excludes; float:
 * added; a mask shorter than the total sequence excludes the rest), the causal mask (aligned to the end: query i
 * sees keys up to i + past length) and opset 24's {@code nonpad_kv_seqlen}. Output 3 is the scores after the step
 * chosen by {@code qk_matmul_output_mode}: 0 and 1 the (soft-capped) product, 2 with the bias added, 3 the softmax,
 * following ONNX's reference implementation. Computed in float32 with double softmax sums.
 */
final class AttentionKernel {
    private AttentionKernel() {
    }

    /**
     * Gives the factory.
     *
     * @return the factory
     */
    static KernelFactory factory() {
        return AttentionKernel::create;
    }

    private static CpuKernel create(NodeView node) {
        boolean causal = node.intAttr("is_causal", 0) != 0;
        long qHeadsAttr = node.intAttr("q_num_heads", 0);
        long kvHeadsAttr = node.intAttr("kv_num_heads", 0);
        long mode = node.intAttr("qk_matmul_output_mode", 0);
        if (mode < 0 || mode > 3) {
            throw new NotImplementedException("Attention attribute 'qk_matmul_output_mode'=" + mode
                    + " is not supported (0 to 3)");
        }
        Float scaleAttr = node.attribute("scale").map(a -> a.asFloat()).orElse(null);
        float softcap = node.floatAttr("softcap", 0f);
        boolean wantPresent = NormSupport.wantsOutput(node, 1) || NormSupport.wantsOutput(node, 2);
        boolean wantQk = NormSupport.wantsOutput(node, 3);
        return (in, ctx) -> {
            Tensor q = in[0];
            Tensor k = NormSupport.required(in, 1, "Attention input K");
            Tensor v = NormSupport.required(in, 2, "Attention input V");
            FloatData.requireFloating(q, "Attention input Q");
            int rank = q.rank();
            if (rank != k.rank() || rank != v.rank() || (rank != 3 && rank != 4)) {
                throw new InvalidArgumentException("Attention inputs Q, K and V must all be 3-D or all 4-D, got "
                        + Tensor.shapeString(q.shape()) + ", " + Tensor.shapeString(k.shape()) + ", "
                        + Tensor.shapeString(v.shape()));
            }
            int batch = (int) q.dim(0);
            int qHeads;
            int kvHeads;
            if (rank == 4) {
                qHeads = (int) q.dim(1);
                kvHeads = (int) k.dim(1);
            } else {
                if (qHeadsAttr <= 0 || kvHeadsAttr <= 0) {
                    throw new InvalidModelException("Attention attributes 'q_num_heads' and 'kv_num_heads' are "
                            + "required for 3-D inputs");
                }
                qHeads = (int) qHeadsAttr;
                kvHeads = (int) kvHeadsAttr;
            }
            if (kvHeads <= 0 || qHeads % kvHeads != 0) {
                throw new InvalidArgumentException("Attention q_num_heads " + qHeads
                        + " is not a multiple of kv_num_heads " + kvHeads);
            }
            Heads qv = Heads.of(q, qHeads, "Q");
            Heads kv = Heads.of(k, kvHeads, "K");
            Heads vv = Heads.of(v, kvHeads, "V");
            if (kv.headSize != qv.headSize) {
                throw new InvalidArgumentException("Attention Q head size " + qv.headSize
                        + " differs from K head size " + kv.headSize);
            }
            Tensor pastK = NormSupport.optional(in, 4);
            Tensor pastV = NormSupport.optional(in, 5);
            int past = pastK == null ? 0 : (int) pastK.dim(2);
            float[] presentK = kv.appendTo(pastK, batch);
            float[] presentV = vv.appendTo(pastV, batch);
            int total = past + kv.seq;
            AttentionBias bias = new AttentionBias(NormSupport.optional(in, 3), causal, past,
                    NormSupport.optional(in, 6), batch, qHeads, qv.seq, total);
            float scale = scaleAttr != null ? scaleAttr : (float) (1 / Math.sqrt(qv.headSize));
            int d = qv.headSize;
            int dv = vv.headSize;
            int sq = qv.seq;
            int group = qHeads / kvHeads;
            float[] qa = qv.data;
            float[] y = new float[batch * qHeads * sq * dv];
            float[] qk = wantQk ? new float[batch * qHeads * sq * total] : null;
            ctx.parallelFor(batch * qHeads, 1, (from, to) -> {
                float[] s = new float[total];
                double[] acc = new double[dv];
                for (int bh = from; bh < to; bh++) {
                    int b = bh / qHeads;
                    int h = bh % qHeads;
                    int kvBase = (b * kvHeads + h / group) * total;
                    for (int i = 0; i < sq; i++) {
                        int qo = qv.offset(b, h, i);
                        for (int j = 0; j < total; j++) {
                            int ko = (kvBase + j) * d;
                            float dot = 0;
                            for (int e = 0; e < d; e++) {
                                dot += qa[qo + e] * presentK[ko + e];
                            }
                            float sc = dot * scale;
                            if (softcap > 0) {
                                sc = (float) (softcap * Math.tanh(sc / softcap));
                            }
                            s[j] = sc;
                        }
                        int qkRow = (bh * sq + i) * total;
                        if (qk != null && mode <= 1) {
                            System.arraycopy(s, 0, qk, qkRow, total);
                        }
                        bias.add(s, b, h, i);
                        if (qk != null && mode == 2) {
                            System.arraycopy(s, 0, qk, qkRow, total);
                        }
                        softmax(s, total);
                        if (qk != null && mode == 3) {
                            System.arraycopy(s, 0, qk, qkRow, total);
                        }
                        Arrays.fill(acc, 0);
                        for (int j = 0; j < total; j++) {
                            float p = s[j];
                            if (p == 0) {
                                continue;
                            }
                            int vo = (kvBase + j) * dv;
                            for (int e = 0; e < dv; e++) {
                                acc[e] += p * presentV[vo + e];
                            }
                        }
                        int yo = rank == 4 ? ((b * qHeads + h) * sq + i) * dv : ((b * sq + i) * qHeads + h) * dv;
                        for (int e = 0; e < dv; e++) {
                            y[yo + e] = (float) acc[e];
                        }
                    }
                }
            });
            ElementType type = q.type();
            long[] yShape = rank == 4 ? new long[] {batch, qHeads, sq, dv}
                    : new long[] {batch, sq, (long) qHeads * dv};
            Tensor[] out = new Tensor[4];
            out[0] = Values.fromFloats(type, yShape, y);
            if (wantPresent) {
                // without past and in 4-D the present arrays are the inputs' own: copy before handing them out
                out[1] = Values.fromFloats(type, new long[] {batch, kvHeads, total, d},
                        presentK == k.data() ? presentK.clone() : presentK);
                out[2] = Values.fromFloats(type, new long[] {batch, kvHeads, total, dv},
                        presentV == v.data() ? presentV.clone() : presentV);
            }
            if (qk != null) {
                out[3] = Values.fromFloats(type, new long[] {batch, qHeads, sq, total}, qk);
            }
            return out;
        };
    }

    /** Softmax in place; a row that excludes every key gives all zeros rather than NaN. */
    private static void softmax(float[] s, int n) {
        float m = Float.NEGATIVE_INFINITY;
        for (int j = 0; j < n; j++) {
            m = Math.max(m, s[j]);
        }
        if (m == Float.NEGATIVE_INFINITY) {
            Arrays.fill(s, 0, n, 0f);
            return;
        }
        double sum = 0;
        for (int j = 0; j < n; j++) {
            float e = (float) Math.exp(s[j] - m);
            s[j] = e;
            sum += e;
        }
        float inv = (float) (1 / sum);
        for (int j = 0; j < n; j++) {
            s[j] *= inv;
        }
    }

    /** One of Q, K, V as float data with its head layout. */
    private static final class Heads {
        final float[] data;
        final int heads;
        final int seq;
        final int headSize;
        final boolean packed;

        private Heads(float[] data, int heads, int seq, int headSize, boolean packed) {
            this.data = data;
            this.heads = heads;
            this.seq = seq;
            this.headSize = headSize;
            this.packed = packed;
        }

        static Heads of(Tensor t, int heads, String name) {
            FloatData.requireFloating(t, "Attention input " + name);
            long[] s = t.shape();
            if (s.length == 4) {
                if (s[1] != heads) {
                    throw new InvalidArgumentException("Attention input " + name + " has " + s[1]
                            + " heads, expected " + heads);
                }
                return new Heads(Values.toFloats(t), heads, (int) s[2], (int) s[3], false);
            }
            if (s[2] % heads != 0) {
                throw new InvalidArgumentException("Attention input " + name + " hidden size " + s[2]
                        + " is not a multiple of " + heads + " heads");
            }
            return new Heads(Values.toFloats(t), heads, (int) s[1], (int) (s[2] / heads), true);
        }

        /** The offset of the vector of (batch b, head h, position i). */
        int offset(int b, int h, int i) {
            return packed ? ((b * seq + i) * heads + h) * headSize : ((b * heads + h) * seq + i) * headSize;
        }

        /** Builds {@code (B, heads, past + seq, headSize)}: the past rows, then this tensor's. */
        float[] appendTo(Tensor pastT, int batch) {
            int past = 0;
            float[] p = null;
            if (pastT != null) {
                long[] ps = pastT.shape();
                if (ps.length != 4 || ps[0] != batch || ps[1] != heads || ps[3] != headSize) {
                    throw new InvalidArgumentException("Attention past key/value of shape "
                            + Tensor.shapeString(ps) + " does not match " + batch + " x " + heads + " x ? x "
                            + headSize);
                }
                past = (int) ps[2];
                p = Values.toFloats(pastT);
            }
            int total = past + seq;
            if (p == null && !packed) {
                return data;
            }
            float[] out = new float[batch * heads * total * headSize];
            for (int b = 0; b < batch; b++) {
                for (int h = 0; h < heads; h++) {
                    int dst = (b * heads + h) * total * headSize;
                    if (p != null) {
                        System.arraycopy(p, (b * heads + h) * past * headSize, out, dst, past * headSize);
                    }
                    for (int i = 0; i < seq; i++) {
                        System.arraycopy(data, offset(b, h, i), out, dst + (past + i) * headSize, headSize);
                    }
                }
            }
            return out;
        }
    }
}
