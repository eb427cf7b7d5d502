package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.nn.Window;

/**
 * A QLinearConv whose weights, bias, scales and output zero point are constants, compiled once: the exact integer
 * convolution ({@link IntegerConv}) and the requantization to the output type. Made for the fusion of the
 * {@code DequantizeLinear -> Conv -> QuantizeLinear} pattern. Immutable and thread safe.
 */
public final class QuantizedConv {
    private final IntegerConv conv;
    private final Tensor bias;
    private final Requantization requantization;
    private final int cout;

    private QuantizedConv(IntegerConv conv, Tensor bias, Requantization requantization, int cout) {
        this.conv = conv;
        this.bias = bias;
        this.requantization = requantization;
        this.cout = cout;
    }

    /**
     * Compiles the convolution, when its operands take the integer path.
     *
     * @param attrs the window attributes
     * @param group the group count
     * @param w the 8-bit weights {@code (M, C / group, k1, ...)}
     * @param wZero their zero point (one value or one per output channel), or {@code null}
     * @param bias the int32 bias of {@code M} values, or {@code null}
     * @param xScale the input's float32 scale, one value
     * @param wScale the weights' float32 scale, one value or one per output channel
     * @param yScale the output's float32 scale, one value
     * @param yZero the output's 8-bit zero point, one value
     * @return the compiled convolution, or {@code null} when these operands need the nodes one by one
     */
    public static QuantizedConv compile(Window.Attrs attrs, int group, Tensor w, Tensor wZero, Tensor bias,
                                        Tensor xScale, Tensor wScale, Tensor yScale, Tensor yZero) {
        if (!IntegerConv.weightsFit(w, wZero) || group < 1 || !Requantization.supports(yZero.type())
                || yZero.size() != 1 || xScale.size() != 1 || yScale.size() != 1
                || !(wScale.size() == 1 || wScale.rank() == 1 && wScale.size() == w.dim(0))
                || bias != null && (bias.type() != ElementType.INT32 || bias.size() != w.dim(0))) {
            return null;
        }
        IntegerConv conv;
        try {
            conv = IntegerConv.prepare(attrs, group, w, wZero);
        } catch (RuntimeException e) {
            // weights the convolution refuses: the Conv node reports it
            return null;
        }
        if (conv == null) {
            return null;
        }
        int cout = Math.toIntExact(w.dim(0));
        return new QuantizedConv(conv, bias, Requantization.of(xScale, wScale, yScale, yZero, yZero.type(), cout),
                cout);
    }

    /**
     * The same convolution with its output kept within {@code [lo, hi]} in float terms, as a Relu or Clip between the
     * float convolution and its QuantizeLinear keeps it.
     *
     * @param lo the lower bound (negative infinity for none)
     * @param hi the upper bound (positive infinity for none), at least {@code lo}
     * @param yScale the output's float32 scale, one value
     * @param yZero the output's 8-bit zero point, one value
     * @return the clamped convolution
     */
    public QuantizedConv clampedTo(float lo, float hi, Tensor yScale, Tensor yZero) {
        return new QuantizedConv(conv, bias, requantization.clampedTo(
                Requantization.level(lo, yScale.floats()[0], (int) yZero.getLong(0), yZero.type()),
                Requantization.level(hi, yScale.floats()[0], (int) yZero.getLong(0), yZero.type())), cout);
    }

    /**
     * Computes the quantized output.
     *
     * @param x the 8-bit input {@code (N, C, D1, ...)}
     * @param xZero its zero point, one value of x's type, or {@code null}
     * @param ctx the run's context
     * @return the output, or {@code null} when the input is not one this convolution takes (the nodes then run)
     */
    public Tensor compute(Tensor x, Tensor xZero, KernelContext ctx) {
        if (!IntegerConv.inputFits(x, xZero) || xZero != null && xZero.type() != x.type() || !conv.accepts(x)) {
            return null;
        }
        Tensor acc = conv.run(x, xZero, bias, ctx);
        int plane = acc.size() == 0 ? 0 : (int) (acc.size() / acc.dim(0) / cout);
        return requantization.apply(acc.ints(), (int) acc.dim(0), plane, acc.shape(), ctx);
    }
}
