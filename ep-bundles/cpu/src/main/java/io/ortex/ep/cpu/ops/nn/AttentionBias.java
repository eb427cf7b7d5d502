package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * The additive bias of one Attention run, applied to one row of scores at a time: the attention mask (bool or
 * float, broadcast NumPy-style to {@code (B, q_heads, q_seq, total_seq)}, a shorter last axis excluding the keys
 * past it), the causal mask and opset 24's per-batch count of valid keys. Immutable once built.
 */
final class AttentionBias {
    private final float[] mask;
    private final boolean[] allowed;
    private final int mb;
    private final int mh;
    private final int mi;
    private final int mj;
    private final boolean causal;
    private final int[] causalOffset;
    private final int[] validKeys;
    private final int total;

    /**
     * Prepares the bias.
     *
     * @param maskT the attn_mask input, or {@code null}
     * @param causal whether is_causal is set
     * @param past the number of past keys (past_key's sequence length, 0 without one)
     * @param nonPadT the nonpad_kv_seqlen input, or {@code null}
     * @param batch the batch size
     * @param heads the number of query heads
     * @param qSeq the query sequence length
     * @param total the total key sequence length
     */
    AttentionBias(Tensor maskT, boolean causal, int past, Tensor nonPadT, int batch, int heads, int qSeq,
            int total) {
        this.total = total;
        this.causal = causal;
        if (maskT != null) {
            long[] s = maskT.shape();
            if (s.length < 1 || s.length > 4) {
                throw new InvalidArgumentException("Attention input attn_mask must have rank 1 to 4, got "
                        + Tensor.shapeString(s));
            }
            long[] d = {1, 1, 1, 1};
            System.arraycopy(s, 0, d, 4 - s.length, s.length);
            long[] want = {batch, heads, qSeq, total};
            for (int i = 0; i < 3; i++) {
                if (d[i] != 1 && d[i] != want[i]) {
                    throw new InvalidArgumentException("Attention input attn_mask of shape "
                            + Tensor.shapeString(s) + " cannot be broadcast to " + Tensor.shapeString(want));
                }
            }
            if (d[3] > total) {
                throw new InvalidArgumentException("Attention input attn_mask has " + d[3]
                        + " keys, more than the total sequence length " + total);
            }
            mb = (int) d[0];
            mh = (int) d[1];
            mi = (int) d[2];
            mj = (int) d[3];
            if (maskT.type() == ElementType.BOOL) {
                allowed = maskT.booleans();
                mask = null;
            } else {
                FloatData.requireFloating(maskT, "Attention input attn_mask");
                mask = Values.toFloats(maskT);
                allowed = null;
            }
        } else {
            mask = null;
            allowed = null;
            mb = mh = mi = mj = 0;
        }
        if (nonPadT != null) {
            if (nonPadT.size() != batch) {
                throw new InvalidArgumentException("Attention input nonpad_kv_seqlen has " + nonPadT.size()
                        + " elements, expected one per batch entry (" + batch + ")");
            }
            validKeys = new int[batch];
            for (int b = 0; b < batch; b++) {
                validKeys[b] = (int) nonPadT.getLong(b);
            }
        } else {
            validKeys = null;
        }
        causalOffset = new int[batch];
        for (int b = 0; b < batch; b++) {
            // a query block is aligned to the end of the valid keys
            causalOffset[b] = past > 0 || validKeys == null ? past : validKeys[b] - qSeq;
        }
    }

    /**
     * Adds the bias to the scores of query {@code i} of head {@code h} in batch entry {@code b}.
     *
     * @param s the scores, {@code total} of them; excluded keys become negative infinity
     * @param b the batch entry
     * @param h the query head
     * @param i the query position
     */
    void add(float[] s, int b, int h, int i) {
        if (mask != null || allowed != null) {
            int o = (((mb == 1 ? 0 : b) * mh + (mh == 1 ? 0 : h)) * mi + (mi == 1 ? 0 : i)) * mj;
            if (mask != null) {
                for (int j = 0; j < mj; j++) {
                    s[j] += mask[o + j];
                }
            } else {
                for (int j = 0; j < mj; j++) {
                    if (!allowed[o + j]) {
                        s[j] = Float.NEGATIVE_INFINITY;
                    }
                }
            }
            for (int j = mj; j < total; j++) {
                s[j] = Float.NEGATIVE_INFINITY;
            }
        }
        if (causal) {
            for (int j = Math.max(0, i + causalOffset[b] + 1); j < total; j++) {
                s[j] = Float.NEGATIVE_INFINITY;
            }
        }
        if (validKeys != null) {
            for (int j = Math.max(0, validKeys[b]); j < total; j++) {
                s[j] = Float.NEGATIVE_INFINITY;
            }
        }
    }
}
