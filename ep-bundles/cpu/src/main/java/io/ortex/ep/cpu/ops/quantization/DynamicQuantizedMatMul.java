package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import io.ortex.ep.cpu.linalg.Quantize;
import java.util.List;

/**
 * The computation dynamic-quantization tools write as {@code DynamicQuantizeLinear} on a float input followed, for
 * each of one or more constant weights, by {@code MatMulInteger}, a Cast to float, a Mul by the product of the
 * input's scale and the weight's scale, and optionally the Add of a bias: {@code y = float((q(x) - zx) x (W - zw)) *
 * (sx * sw) + bias}. The input is quantized once, straight into the centred levels the integer product multiplies
 * (no uint8 tensor), each product runs exactly on the float GEMM as {@link IntegerMatMul} does, and the scale and
 * bias are applied in one pass over the result (no int32 or intermediate float tensor). Every step is the same
 * float32 operation the unfused nodes do, so the outputs are equal bit for bit. Immutable and thread safe.
 */
public final class DynamicQuantizedMatMul {
    private final int k;
    private final List<Layer> layers;

    private DynamicQuantizedMatMul(int k, List<Layer> layers) {
        this.k = k;
        this.layers = layers;
    }

    /**
     * One weight of the pattern.
     *
     * @param weights the packed weight
     * @param scale the weight's scale: one value, or one per column
     * @param bias the bias, one value per column, or {@code null} when there is no Add
     */
    private record Layer(IntegerMatMul.Weights weights, float[] scale, float[] bias) {
    }

    /**
     * Whether a weight and what goes with it can be fused: an 8-bit matrix {@code [k, n]}, its zero point one value or
     * one per column, its float32 scale one value or one per column (rank at most 1, so that it broadcasts without
     * changing the product's shape), and the float32 bias, if any, {@code n} values of rank 1.
     *
     * @param weight the weight
     * @param zeroPoint its zero point, or {@code null}
     * @param scale its scale
     * @param bias the bias, or {@code null}
     * @return whether {@link #compile} takes them
     */
    public static boolean takes(Tensor weight, Tensor zeroPoint, Tensor scale, Tensor bias) {
        if (!IntegerMatMul.weightsFit(weight, zeroPoint) || weight.dim(0) > Integer.MAX_VALUE / Math.max(1,
                weight.dim(1))) {
            return false;
        }
        long n = weight.dim(1);
        return scale.type() == ElementType.FLOAT && scale.rank() <= 1 && (scale.size() == 1 || scale.size() == n)
                && (bias == null || bias.type() == ElementType.FLOAT && bias.rank() == 1 && bias.size() == n);
    }

    /**
     * Packs the weights, each as {@link #takes} checked; they share the reduction length {@code k}.
     *
     * @param weights the weights
     * @param zeroPoints their zero points (entries may be {@code null})
     * @param scales their scales
     * @param biases their biases (entries may be {@code null})
     * @return the compiled computation
     * @throws IllegalArgumentException when the weights' row counts differ
     */
    public static DynamicQuantizedMatMul compile(List<Tensor> weights, List<Tensor> zeroPoints, List<Tensor> scales,
                                                 List<Tensor> biases) {
        int k = (int) weights.get(0).dim(0);
        Layer[] layers = new Layer[weights.size()];
        for (int i = 0; i < layers.length; i++) {
            Tensor w = weights.get(i);
            if (w.dim(0) != k) {
                throw new IllegalArgumentException("weight " + i + " has " + w.dim(0) + " rows, not " + k);
            }
            Tensor bias = biases.get(i);
            layers[i] = new Layer(IntegerMatMul.Weights.of(w, zeroPoints.get(i)), scales.get(i).floats().clone(),
                    bias == null ? null : bias.floats().clone());
        }
        return new DynamicQuantizedMatMul(k, List.of(layers));
    }

    /**
     * Computes the outputs.
     *
     * @param x the float input, {@code [..., k]}
     * @param wanted which layers' outputs are needed (the others are not computed)
     * @param ctx the run's context
     * @return one float tensor {@code [..., n]} per layer ({@code null} where not wanted), or {@code null} when the
     *     input is not a float32 tensor of rank 1 or more whose last dimension is {@code k}
     */
    public Tensor[] compute(Tensor x, boolean[] wanted, KernelContext ctx) {
        if (x.type() != ElementType.FLOAT || x.rank() < 1 || x.dim(x.rank() - 1) != k) {
            return null;
        }
        float[] v = x.floats();
        long outerRows = 1;
        for (int d = 0; d < x.rank() - 1; d++) {
            outerRows *= x.dim(d);
        }
        int widest = layers.stream().mapToInt(l -> l.weights().n()).max().orElse(0);
        if (outerRows * widest > Integer.MAX_VALUE) {
            return null;
        }
        int rows = (int) outerRows;
        float[] range = Quantize.range(v, 0, v.length);
        float inputScale = DynamicQuantizeKernel.scaleOf(range);
        // DynamicQuantizeLinear gives levels and a zero point of 0 for a scale of 0 or NaN: the product is all 0
        boolean zero = inputScale == 0 || Float.isNaN(inputScale) || k == 0;
        float[] centred = null;
        if (!zero) {
            float z = DynamicQuantizeKernel.zeroPointOf(range, inputScale);
            float[] c = new float[v.length];
            ctx.parallelFor(v.length, 16384, (from, to) -> Quantize.levels(v, from, to - from, inputScale, z, z, c,
                    from));
            centred = c;
        }
        Tensor[] out = new Tensor[layers.size()];
        for (int i = 0; i < out.length; i++) {
            if (wanted[i]) {
                out[i] = layer(layers.get(i), x.shape(), rows, centred, inputScale, ctx);
            }
        }
        return out;
    }

    private Tensor layer(Layer layer, long[] shape, int rows, float[] centred, float inputScale, KernelContext ctx) {
        IntegerMatMul.Weights w = layer.weights();
        int n = w.n();
        shape[shape.length - 1] = n;
        Tensor result = ctx.allocateUninitialized(ElementType.FLOAT, shape);
        float[] y = result.floats();
        // the Mul of the two scales, in float32 as the node does it
        float[] scale = new float[n];
        for (int c = 0; c < n; c++) {
            scale[c] = inputScale * layer.scale()[layer.scale().length == 1 ? 0 : c];
        }
        if (centred == null) {
            java.util.Arrays.fill(y, 0f);
        } else if (w.blocks().length == 1) {
            // one block: the float product holds the exact int32 result, which is also its Cast to float
            Gemm.multiply(centred, 0, k, 1, rows, w.blocks()[0], y, 0, n, Epilogue.NONE, ctx);
        } else {
            int[] acc = new int[y.length];
            IntegerMatMul.accumulate(centred, rows, w, acc, ctx);
            for (int i = 0; i < y.length; i++) {
                y[i] = acc[i];
            }
        }
        float[] bias = layer.bias();
        ctx.parallelFor(rows, Math.max(1, 16384 / Math.max(1, n)), (from, to) -> {
            for (int r = from; r < to; r++) {
                int o = r * n;
                if (bias == null) {
                    for (int c = 0; c < n; c++) {
                        y[o + c] = y[o + c] * scale[c];
                    }
                } else {
                    for (int c = 0; c < n; c++) {
                        y[o + c] = y[o + c] * scale[c] + bias[c];
                    }
                }
            }
        });
        return result;
    }
}
