package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * RotaryEmbedding (opset 23): rotates the first {@code rotary_embedding_dim} (default: all) elements of each head
 * vector by the angles whose cosines and sines come from the caches, indexed by {@code position_ids[b, s]} when
 * given, else by {@code (b, s)}. Pairs are the two halves of the rotated part, or neighbours with
 * {@code interleaved=1}. X is {@code (B, heads, S, head_size)}, or {@code (B, S, hidden)} with {@code num_heads}.
 */
final class RotaryEmbeddingKernel {
    private RotaryEmbeddingKernel() {
    }

    /**
     * Gives the factory.
     *
     * @return the factory
     */
    static KernelFactory factory() {
        return node -> {
            boolean interleaved = node.intAttr("interleaved", 0) != 0;
            long rotaryAttr = node.intAttr("rotary_embedding_dim", 0);
            long headsAttr = node.intAttr("num_heads", 0);
            return (in, ctx) -> {
                Tensor x = in[0];
                FloatData.requireFloating(x, "RotaryEmbedding input X");
                long[] shape = x.shape();
                int b = (int) shape[0];
                int heads;
                int seq;
                int headSize;
                int sB;
                int sS;
                int sH;
                if (shape.length == 4) {
                    heads = (int) shape[1];
                    seq = (int) shape[2];
                    headSize = (int) shape[3];
                    sH = seq * headSize;
                    sS = headSize;
                    sB = heads * sH;
                } else if (shape.length == 3) {
                    if (headsAttr <= 0 || shape[2] % headsAttr != 0) {
                        throw new InvalidModelException("RotaryEmbedding attribute 'num_heads' (" + headsAttr
                                + ") must be positive and divide the hidden size " + shape[2] + " of a 3-D input");
                    }
                    heads = (int) headsAttr;
                    seq = (int) shape[1];
                    headSize = (int) (shape[2] / heads);
                    sH = headSize;
                    sS = heads * headSize;
                    sB = seq * sS;
                } else {
                    throw new InvalidArgumentException("RotaryEmbedding input X must be 3-D or 4-D, got "
                            + Tensor.shapeString(shape));
                }
                int rot = rotaryAttr == 0 ? headSize : (int) rotaryAttr;
                if (rot > headSize || rot % 2 != 0) {
                    throw new InvalidArgumentException("RotaryEmbedding attribute 'rotary_embedding_dim' (" + rot
                            + ") must be even and at most the head size " + headSize);
                }
                int half = rot / 2;
                float[] cos = Values.toFloats(NormSupport.required(in, 1, "RotaryEmbedding input cos_cache"));
                float[] sin = Values.toFloats(NormSupport.required(in, 2, "RotaryEmbedding input sin_cache"));
                Tensor pos = NormSupport.optional(in, 3);
                int cacheRows = cos.length / Math.max(half, 1);
                boolean fits = cos.length == sin.length && cos.length % Math.max(half, 1) == 0
                        && (pos != null || cacheRows >= b * seq);
                if (!fits) {
                    throw new InvalidArgumentException("RotaryEmbedding caches of " + cos.length + " and "
                            + sin.length + " elements do not fit rotary dimension " + rot);
                }
                float[] v = Values.toFloats(x);
                float[] y = v.clone();
                ctx.parallelFor(b * seq, FloatData.chunk((long) heads * headSize), (from, to) -> {
                    for (int bs = from; bs < to; bs++) {
                        int bi = bs / seq;
                        int si = bs % seq;
                        int row = pos == null ? bs : (int) pos.getLong(bs);
                        if (row < 0 || row >= cacheRows) {
                            throw new InvalidArgumentException("RotaryEmbedding position id " + row
                                    + " is outside the caches' " + cacheRows + " rows");
                        }
                        int c = row * half;
                        for (int h = 0; h < heads; h++) {
                            int o = bi * sB + si * sS + h * sH;
                            for (int i = 0; i < half; i++) {
                                int i1 = interleaved ? o + 2 * i : o + i;
                                int i2 = interleaved ? i1 + 1 : i1 + half;
                                float x1 = v[i1];
                                float x2 = v[i2];
                                y[i1] = cos[c + i] * x1 - sin[c + i] * x2;
                                y[i2] = sin[c + i] * x1 + cos[c + i] * x2;
                            }
                        }
                    }
                });
                return new Tensor[] {Values.fromFloats(x.type(), shape, y)};
            };
        };
    }
}
