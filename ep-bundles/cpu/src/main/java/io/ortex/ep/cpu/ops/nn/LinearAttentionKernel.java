package io.ortex.ep.cpu.ops.nn;

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
 * LinearAttention (opset 27): recurrent linear attention over a per-head state matrix {@code S [dk, dv]}.
 * {@code query [B, T, Hq * dk]}, {@code key [B, T, Hkv * dk]} and {@code value [B, T, Hkv * dv]} are read step by
 * step; the state starts from {@code past_state [B, Hkv, dk, dv]} (zeros when omitted) and is updated per
 * {@code update_rule}:
 * <ul>
 *   <li>{@code linear}: {@code S += k v^T};</li>
 *   <li>{@code gated}: {@code S = diag(exp(g)) S + k v^T};</li>
 *   <li>{@code delta}: {@code S += k (beta (v - S^T k))^T};</li>
 *   <li>{@code gated_delta} (default): the delta rule on the decayed state {@code diag(exp(g)) S}.</li>
 * </ul>
 * The decay {@code g} ({@code decay}, {@code [B, T, Hkv * dk]} per key dimension or {@code [B, T, Hkv]} per head)
 * and {@code beta [B, T, Hkv]} are inputs 4 and 5. Each step outputs {@code scale * S^T q} (scale defaults to
 * {@code 1 / sqrt(dk)}); query head {@code h} reads kv head {@code h / (Hq / Hkv)}. Outputs the
 * {@code [B, T, Hq * dv]} result and the final state. Float types, computed in float.
 */
final class LinearAttentionKernel {
    private enum Rule { LINEAR, GATED, DELTA, GATED_DELTA }

    private LinearAttentionKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        int hq = (int) Shapes.requiredScalarAttr(node, "q_num_heads");
        int hkv = (int) Shapes.requiredScalarAttr(node, "kv_num_heads");
        if (hq < 1 || hkv < 1 || hq % hkv != 0) {
            throw new InvalidModelException("LinearAttention attributes 'q_num_heads' " + hq + " and 'kv_num_heads' "
                    + hkv + " must be positive, the first a multiple of the second");
        }
        String ruleName = node.stringAttr("update_rule", "gated_delta");
        Rule rule;
        try {
            rule = Rule.valueOf(ruleName.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidModelException("LinearAttention attribute 'update_rule' '" + ruleName
                    + "' is not linear, gated, delta or gated_delta");
        }
        float scaleAttr = node.floatAttr("scale", 0f);
        boolean gated = rule == Rule.GATED || rule == Rule.GATED_DELTA;
        boolean delta = rule == Rule.DELTA || rule == Rule.GATED_DELTA;
        return (in, ctx) -> {
            Tensor q = in[0];
            FloatData.requireFloating(q, "LinearAttention input 'query'");
            long[] qs = q.shape();
            long[] ks = in[1].shape();
            long[] vs = in[2].shape();
            if (qs.length != 3 || ks.length != 3 || vs.length != 3 || qs[2] % hq != 0 || ks[2] % hkv != 0
                    || vs[2] % hkv != 0) {
                throw new InvalidArgumentException("LinearAttention needs 'query' [B, T, " + hq + " * dk], 'key' [B, "
                        + "T, " + hkv + " * dk] and 'value' [B, T, " + hkv + " * dv], got " + Tensor.shapeString(qs)
                        + ", " + Tensor.shapeString(ks) + " and " + Tensor.shapeString(vs));
            }
            int b = (int) qs[0];
            int t = (int) qs[1];
            int dk = (int) (qs[2] / hq);
            int dv = (int) (vs[2] / hkv);
            if (ks[2] / hkv != dk) {
                throw new InvalidArgumentException("LinearAttention 'key' head size " + ks[2] / hkv
                        + " differs from the query's " + dk);
            }
            Tensor pastT = Shapes.optional(in, 3);
            Tensor decayT = Shapes.optional(in, 4);
            Tensor betaT = Shapes.optional(in, 5);
            if (gated && decayT == null) {
                throw new InvalidArgumentException("LinearAttention update rule '" + ruleName
                        + "' needs input 'decay'");
            }
            if (delta && betaT == null) {
                throw new InvalidArgumentException("LinearAttention update rule '" + ruleName
                        + "' needs input 'beta'");
            }
            long[] ss = {b, hkv, dk, dv};
            float[] state = new float[Tensor.checkedElementCount(ss)];
            if (pastT != null) {
                if (!java.util.Arrays.equals(pastT.shape(), ss)) {
                    throw new InvalidArgumentException("LinearAttention input 'past_state' has shape "
                            + Tensor.shapeString(pastT.shape()) + ", expected " + Tensor.shapeString(ss));
                }
                System.arraycopy(Values.toFloats(pastT), 0, state, 0, state.length);
            }
            float[] qv = Values.toFloats(q);
            float[] kv = Values.toFloats(in[1]);
            float[] vv = Values.toFloats(in[2]);
            float[] decay = gated ? Values.toFloats(decayT) : null;
            int decayWidth = gated ? (int) (decayT.size() / ((long) b * t)) : 0;
            if (gated && decayWidth != hkv * dk && decayWidth != hkv) {
                throw new InvalidArgumentException("LinearAttention input 'decay' must hold " + (hkv * dk) + " or "
                        + hkv + " values per step, not " + decayWidth);
            }
            float[] beta = delta ? Values.toFloats(betaT) : null;
            if (delta && betaT.size() != (long) b * t * hkv) {
                throw new InvalidArgumentException("LinearAttention input 'beta' must have shape [" + b + ", " + t
                        + ", " + hkv + "], not " + Tensor.shapeString(betaT.shape()));
            }
            float scale = scaleAttr != 0f ? scaleAttr : (float) (1 / Math.sqrt(dk));
            int group = hq / hkv;
            long[] os = {b, t, (long) hq * dv};
            float[] y = new float[Tensor.checkedElementCount(os)];
            ctx.parallelFor(b * hkv, 1, (from, to) -> {
                float[] update = new float[dv];
                for (int bh = from; bh < to; bh++) {
                    int bi = bh / hkv;
                    int h = bh % hkv;
                    int s0 = bh * dk * dv;
                    for (int step = 0; step < t; step++) {
                        int row = bi * t + step;
                        int kBase = (row * hkv + h) * dk;
                        int vBase = (row * hkv + h) * dv;
                        if (gated) {
                            boolean perHead = decayWidth == hkv;
                            for (int i = 0; i < dk; i++) {
                                float g = (float) Math.exp(decay[row * decayWidth + (perHead ? h : h * dk + i)]);
                                int r = s0 + i * dv;
                                for (int j = 0; j < dv; j++) {
                                    state[r + j] *= g;
                                }
                            }
                        }
                        if (delta) {
                            float bt = beta[row * hkv + h];
                            for (int j = 0; j < dv; j++) {
                                update[j] = vv[vBase + j];
                            }
                            for (int i = 0; i < dk; i++) {
                                float ki = kv[kBase + i];
                                int r = s0 + i * dv;
                                for (int j = 0; j < dv; j++) {
                                    update[j] -= state[r + j] * ki;
                                }
                            }
                            for (int j = 0; j < dv; j++) {
                                update[j] *= bt;
                            }
                        } else {
                            System.arraycopy(vv, vBase, update, 0, dv);
                        }
                        for (int i = 0; i < dk; i++) {
                            float ki = kv[kBase + i];
                            int r = s0 + i * dv;
                            for (int j = 0; j < dv; j++) {
                                state[r + j] += ki * update[j];
                            }
                        }
                        for (int qh = h * group; qh < (h + 1) * group; qh++) {
                            int qBase = (row * hq + qh) * dk;
                            int out = (row * hq + qh) * dv;
                            for (int i = 0; i < dk; i++) {
                                float qi = qv[qBase + i] * scale;
                                int r = s0 + i * dv;
                                for (int j = 0; j < dv; j++) {
                                    y[out + j] += qi * state[r + j];
                                }
                            }
                        }
                    }
                }
            });
            ElementType type = q.type();
            ElementType stateType = pastT != null ? pastT.type() : type;
            return new Tensor[] {
                type == ElementType.FLOAT ? Tensor.of(type, os, y) : Values.fromFloats(type, os, y),
                stateType == ElementType.FLOAT ? Tensor.of(stateType, ss, state)
                        : Values.fromFloats(stateType, ss, state)};
        };
    }
}
