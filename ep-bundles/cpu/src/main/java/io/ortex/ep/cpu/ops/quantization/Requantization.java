package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * Turns the int32 accumulators of a quantized product into the 8-bit output: {@code saturate(round(acc * m) + zp)}
 * with {@code m = a_scale * b_scale / y_scale} per output channel (or column), rounded half to even. For float32
 * scales the multiplier and the product are float32 operations, as ONNX Runtime computes them ({@code float(acc) *
 * m}); for float16 scales the multiplier is rounded to float16 at each step and for float64 scales everything is in
 * float64, the scales' own precision. Immutable and thread safe.
 */
final class Requantization {
    private final double[] multipliers;
    private final boolean single;
    private final int zeroPoint;
    private final int lo;
    private final int hi;
    private final ElementType type;

    private Requantization(double[] multipliers, boolean single, int zeroPoint, ElementType type, int lo, int hi) {
        this.multipliers = multipliers;
        this.single = single;
        this.zeroPoint = zeroPoint;
        this.type = type;
        this.lo = lo;
        this.hi = hi;
    }

    /**
     * The same requantization with its outputs also kept within the levels {@code [lo, hi]}: an activation that
     * clamps the float product (Relu, Clip) before QuantizeLinear, moved past the quantization. QuantizeLinear is
     * monotonic, so clamping the levels to the quantized bounds gives what quantizing the clamped product gives.
     *
     * @param low the lowest level kept
     * @param high the highest level kept, at least {@code low}
     * @return the narrowed requantization
     */
    Requantization clampedTo(int low, int high) {
        return new Requantization(multipliers, single, zeroPoint, type, Math.max(lo, low), Math.min(hi, high));
    }

    /**
     * The level QuantizeLinear gives a float32 value: {@code saturate(round_half_even(x / scale) + zeroPoint)}, the
     * infinities saturating.
     *
     * @param x the value
     * @param scale the float32 scale
     * @param zeroPoint the zero point
     * @param type the 8-bit output type
     * @return the level
     */
    static int level(float x, float scale, int zeroPoint, ElementType type) {
        double v = Math.rint(x / scale) + zeroPoint;
        return (int) Math.max(minLevel(type), Math.min(maxLevel(type), v));
    }

    private static int minLevel(ElementType type) {
        return type == ElementType.UINT8 ? 0 : -128;
    }

    private static int maxLevel(ElementType type) {
        return type == ElementType.UINT8 ? 255 : 127;
    }

    /**
     * Whether the output type is one this class writes.
     *
     * @param type the output's element type
     * @return whether it is uint8 or int8
     */
    static boolean supports(ElementType type) {
        return type == ElementType.UINT8 || type == ElementType.INT8;
    }

    /**
     * Prepares the requantization of a product with {@code channels} output channels.
     *
     * @param aScale the left operand's (or input's) scale, one value
     * @param bScale the right operand's (or weights') scale, one value or one per channel
     * @param yScale the output's scale, one value
     * @param yZeroPoint the output's zero point, one value, or {@code null} for 0
     * @param type the output's element type, {@link #supports supported}
     * @param channels the channel count
     * @return the requantization
     */
    static Requantization of(Tensor aScale, Tensor bScale, Tensor yScale, Tensor yZeroPoint, ElementType type,
                             int channels) {
        double[] m = new double[channels];
        for (int c = 0; c < channels; c++) {
            m[c] = multiplier(aScale, 0, bScale, bScale.size() == 1 ? 0 : c, yScale);
        }
        int zp = yZeroPoint == null || yZeroPoint.size() == 0 ? 0 : (int) yZeroPoint.getLong(0);
        return new Requantization(m, aScale.type() == ElementType.FLOAT, zp, type, minLevel(type), maxLevel(type));
    }

    /**
     * {@code a_scale * b_scale / y_scale} rounded like the scales' own type.
     *
     * @param as the left scale
     * @param ai the index in it
     * @param bs the right scale
     * @param bi the index in it
     * @param ys the output scale (its first value is used)
     * @return the multiplier
     */
    static double multiplier(Tensor as, int ai, Tensor bs, int bi, Tensor ys) {
        if (as.type() == ElementType.FLOAT16) {
            float p = half(half(as.getDouble(ai)) * half(bs.getDouble(bi)));
            return half(p / half(ys.getDouble(0)));
        }
        if (as.type() == ElementType.DOUBLE) {
            return as.getDouble(ai) * bs.getDouble(bi) / ys.getDouble(0);
        }
        float p = (float) as.getDouble(ai) * (float) bs.getDouble(bi);
        return p / (float) ys.getDouble(0);
    }

    private static float half(double v) {
        return HalfFloats.float16ToFloat(HalfFloats.floatToFloat16((float) v));
    }

    /**
     * Requantizes accumulators laid out {@code [outer, channels, inner]}, the channel being the one whose multiplier
     * applies ({@code inner} is 1 for a matrix product's columns, the spatial size for a convolution's channels).
     *
     * @param acc the accumulators
     * @param outer the count of the outer axis
     * @param inner the count of the inner axis
     * @param shape the output's shape
     * @param ctx the run's context
     * @return the output tensor
     */
    Tensor apply(int[] acc, int outer, int inner, long[] shape, KernelContext ctx) {
        Tensor out = ctx.allocateUninitialized(type, shape);
        byte[] y = (byte[]) out.data();
        int channels = multipliers.length;
        if (inner == 1) {
            // a matrix product: one multiplier per column, so each row runs along its columns
            ctx.parallelFor(outer, Math.max(1, 16384 / Math.max(1, channels)), (from, to) -> {
                for (int o = from; o < to; o++) {
                    for (int c = 0; c < channels; c++) {
                        write(acc, y, o * channels + c, 1, multipliers[c]);
                    }
                }
            });
        } else {
            ctx.parallelFor(outer * channels, Math.max(1, 16384 / inner), (from, to) -> {
                for (int r = from; r < to; r++) {
                    write(acc, y, r * inner, inner, multipliers[r % channels]);
                }
            });
        }
        return out;
    }

    private void write(int[] acc, byte[] y, int off, int len, double m) {
        if (single) {
            float f = (float) m;
            for (int i = off; i < off + len; i++) {
                y[i] = (byte) clamp(Math.rint((float) acc[i] * f));
            }
        } else {
            for (int i = off; i < off + len; i++) {
                y[i] = (byte) clamp(Math.rint(acc[i] * m));
            }
        }
    }

    private int clamp(double rounded) {
        double v = rounded + zeroPoint;
        return (int) Math.max(lo, Math.min(hi, v));
    }
}
