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
 * CausalConvWithState (opset 27): a depthwise causal 1-D convolution that carries its left context between calls.
 * {@code input [B, C, T]} is prefixed with {@code past_state [B, C, K-1]} (zeros when omitted) and convolved,
 * without padding, with {@code weight [C, 1, K]} plus the optional {@code bias [C]}, giving {@code output [B, C, T]}
 * (passed through SiLU when {@code activation} is {@code silu} or {@code swish}); {@code present_state} is the last
 * {@code K-1} columns of the prefixed input. Float types (float32 directly, the others through float).
 */
final class CausalConvKernel {
    private CausalConvKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        String activation = node.stringAttr("activation", "none");
        boolean silu = activation.equals("silu") || activation.equals("swish");
        if (!silu && !activation.equals("none")) {
            throw new NotImplementedException("CausalConvWithState attribute 'activation' '" + activation
                    + "' is not supported (none, silu, swish)");
        }
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "CausalConvWithState input 'input'");
            long[] xs = x.shape();
            long[] ws = in[1].shape();
            if (xs.length != 3 || ws.length != 3 || ws[0] != xs[1] || ws[1] != 1 || ws[2] < 1) {
                throw new InvalidArgumentException("CausalConvWithState needs 'input' [B, C, T] and 'weight' "
                        + "[C, 1, K], got " + Tensor.shapeString(xs) + " and " + Tensor.shapeString(ws));
            }
            int b = (int) xs[0];
            int c = (int) xs[1];
            int t = (int) xs[2];
            int k = (int) ws[2];
            int ctxLen = k - 1;
            Tensor biasT = Shapes.optional(in, 2);
            Tensor pastT = Shapes.optional(in, 3);
            long[] ss = {b, c, ctxLen};
            if (pastT != null && !java.util.Arrays.equals(pastT.shape(), ss)) {
                throw new InvalidArgumentException("CausalConvWithState input 'past_state' has shape "
                        + Tensor.shapeString(pastT.shape()) + ", expected " + Tensor.shapeString(ss));
            }
            float[] xv = Values.toFloats(x);
            float[] wv = Values.toFloats(in[1]);
            float[] bias = biasT == null ? null : Values.toFloats(biasT);
            float[] past = pastT == null ? null : Values.toFloats(pastT);
            float[] y = new float[b * c * t];
            float[] present = new float[b * c * ctxLen];
            ctx.parallelFor(b * c, FloatData.chunk((long) t * k), (from, to) -> {
                float[] padded = new float[ctxLen + t];
                for (int row = from; row < to; row++) {
                    int ch = row % c;
                    if (past != null) {
                        System.arraycopy(past, row * ctxLen, padded, 0, ctxLen);
                    } else {
                        java.util.Arrays.fill(padded, 0, ctxLen, 0f);
                    }
                    System.arraycopy(xv, row * t, padded, ctxLen, t);
                    float b0 = bias == null ? 0 : bias[ch];
                    int wBase = ch * k;
                    int out = row * t;
                    for (int i = 0; i < t; i++) {
                        float acc = b0;
                        for (int j = 0; j < k; j++) {
                            acc += wv[wBase + j] * padded[i + j];
                        }
                        y[out + i] = silu ? acc / (1 + (float) Math.exp(-acc)) : acc;
                    }
                    System.arraycopy(padded, t, present, row * ctxLen, ctxLen);
                }
            });
            return new Tensor[] {wrap(x.type(), xs, y), wrap(x.type(), ss, present)};
        };
    }

    private static Tensor wrap(ElementType type, long[] shape, float[] v) {
        return type == ElementType.FLOAT ? Tensor.of(type, shape, v) : Values.fromFloats(type, shape, v);
    }
}
