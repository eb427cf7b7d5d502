package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * A QLinearMatMul whose right operand, scales and output zero point are constants, compiled once: the right operand
 * centred and packed for the exact integer product ({@link IntegerMatMul}) and the requantization to the output type.
 * Made for the fusion of the {@code DequantizeLinear -> MatMul -> QuantizeLinear} pattern. Immutable and thread safe.
 */
public final class QuantizedMatMul {
    private final IntegerMatMul.Weights weights;
    private final Requantization requantization;
    /** The int32 bias added to each column's accumulators before requantization, or {@code null}. */
    private final int[] bias;

    private QuantizedMatMul(IntegerMatMul.Weights weights, Requantization requantization, int[] bias) {
        this.weights = weights;
        this.requantization = requantization;
        this.bias = bias;
    }

    /**
     * Compiles the product, when its operands take the integer path.
     *
     * @param b the 8-bit right operand {@code [k, n]}
     * @param bZero its zero point (one value or one per column), or {@code null}
     * @param aScale the left operand's float32 scale, one value
     * @param bScale the right operand's float32 scale, one value or one per column
     * @param yScale the output's float32 scale, one value
     * @param yZero the output's 8-bit zero point, one value
     * @return the compiled product, or {@code null} when these operands need the nodes one by one
     */
    public static QuantizedMatMul compile(Tensor b, Tensor bZero, Tensor aScale, Tensor bScale, Tensor yScale,
                                          Tensor yZero) {
        if (!IntegerMatMul.weightsFit(b, bZero) || !Requantization.supports(yZero.type()) || yZero.size() != 1
                || aScale.size() != 1 || yScale.size() != 1
                || !(bScale.size() == 1 || bScale.rank() == 1 && bScale.size() == b.dim(1))) {
            return null;
        }
        IntegerMatMul.Weights w = IntegerMatMul.Weights.of(b, bZero);
        return new QuantizedMatMul(w, Requantization.of(aScale, bScale, yScale, yZero, yZero.type(), w.n()), null);
    }

    /**
     * The same product with its output kept within {@code [lo, hi]} in float terms, as a Relu or Clip between the
     * float product and its QuantizeLinear keeps it.
     *
     * @param lo the lower bound (negative infinity for none)
     * @param hi the upper bound (positive infinity for none), at least {@code lo}
     * @param yScale the output's float32 scale, one value
     * @param yZero the output's 8-bit zero point, one value
     * @return the clamped product
     */
    public QuantizedMatMul clampedTo(float lo, float hi, Tensor yScale, Tensor yZero) {
        return new QuantizedMatMul(weights, requantization.clampedTo(
                Requantization.level(lo, yScale.floats()[0], (int) yZero.getLong(0), yZero.type()),
                Requantization.level(hi, yScale.floats()[0], (int) yZero.getLong(0), yZero.type())), bias);
    }

    /**
     * The same product plus an int32 bias per column, added to the exact accumulators before requantization (a
     * quantized Gemm's C, whose scale is the product's {@code a_scale * b_scale}).
     *
     * @param columnBias the int32 bias, one value per column
     * @return the product with the bias, or {@code null} when the bias is not one int32 value per column
     */
    public QuantizedMatMul withBias(Tensor columnBias) {
        if (columnBias.type() != ElementType.INT32 || columnBias.rank() != 1 || columnBias.size() != weights.n()) {
            return null;
        }
        return new QuantizedMatMul(weights, requantization, columnBias.ints().clone());
    }

    /**
     * Computes the quantized product.
     *
     * @param a the 8-bit left operand {@code [..., m, k]} or {@code [k]}
     * @param aZero its zero point, one value of a's type, or {@code null}
     * @param ctx the run's context
     * @return the output, or {@code null} when the operand is not one this product takes (the nodes then run)
     */
    public Tensor compute(Tensor a, Tensor aZero, KernelContext ctx) {
        boolean eightBit = a.type() == ElementType.UINT8 || a.type() == ElementType.INT8;
        if (!eightBit || aZero != null && (aZero.type() != a.type() || aZero.size() != 1) || a.rank() < 1
                || a.dim(a.rank() - 1) != weights.k()) {
            return null;
        }
        Tensor acc = IntegerMatMul.multiply(a, aZero, weights, ctx);
        int rows = weights.n() == 0 ? 0 : acc.size() / weights.n();
        if (bias != null) {
            int[] v = acc.ints();
            int n = bias.length;
            for (int r = 0, off = 0; r < rows; r++, off += n) {
                for (int c = 0; c < n; c++) {
                    v[off + c] += bias[c];
                }
            }
        }
        return requantization.apply(acc.ints(), rows, 1, acc.shape(), ctx);
    }
}
