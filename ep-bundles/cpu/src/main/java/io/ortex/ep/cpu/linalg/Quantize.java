package io.ortex.ep.cpu.linalg;

/**
 * The float side of 8-bit linear quantization with a range computed from the data, as DynamicQuantizeLinear does it:
 * the range of a run of values widened to include 0, and the levels {@code clamp(round(x / scale) + zeroPoint, 0,
 * 255)}, the division and the rounding (half to even) done in float32 as ONNX's reference does. On the Vector API
 * when it is in use and in plain Java otherwise; both give the same levels bit for bit. Stateless.
 */
public final class Quantize {
    /** The largest level of an unsigned 8-bit value. */
    public static final float QMAX = 255f;

    /** Levels are worked out in chunks of this many values when they are stored as bytes. */
    private static final int CHUNK = 4096;

    private Quantize() {
    }

    /**
     * The smallest and largest of a run of values and 0: NaN when a value is NaN.
     *
     * @param x the values
     * @param off the first index
     * @param n how many
     * @return {@code {min, max}}
     */
    public static float[] range(float[] x, int off, int n) {
        if (VectorSupport.enabled()) {
            return VectorQuantize.range(x, off, n);
        }
        float min = 0;
        float max = 0;
        for (int i = off; i < off + n; i++) {
            min = Math.min(min, x[i]);
            max = Math.max(max, x[i]);
        }
        return new float[] {min, max};
    }

    /**
     * {@code out[o + i] = level(x[xo + i]) - shift}, where {@code level(v) = clamp(rint(v / scale) + zeroPoint, 0,
     * 255)}, 0 for a NaN quotient. With {@code shift} the zero point, the results are the centred levels an integer
     * product multiplies.
     *
     * @param x the values
     * @param xo the first index
     * @param n how many
     * @param scale the scale, neither 0 nor NaN
     * @param zeroPoint the zero point, an integer in [0, 255]
     * @param shift what is subtracted from each level (an integer of magnitude at most 255, so the result is exact)
     * @param out the result
     * @param o its first index
     */
    public static void levels(float[] x, int xo, int n, float scale, float zeroPoint, float shift, float[] out,
                              int o) {
        int done = VectorSupport.enabled() ? VectorQuantize.levels(x, xo, n, scale, zeroPoint, shift, out, o) : 0;
        for (int i = done; i < n; i++) {
            out[o + i] = level(x[xo + i], scale, zeroPoint) - shift;
        }
    }

    /**
     * Quantizes a run of values to unsigned 8-bit levels, {@link #levels} stored as bytes.
     *
     * @param x the values
     * @param xo the first index
     * @param n how many
     * @param scale the scale, neither 0 nor NaN
     * @param zeroPoint the zero point, an integer in [0, 255]
     * @param out the levels, as unsigned bytes
     * @param o the first index of {@code out}
     */
    public static void toBytes(float[] x, int xo, int n, float scale, int zeroPoint, byte[] out, int o) {
        float[] chunk = new float[Math.min(n, CHUNK)];
        for (int from = 0; from < n; from += CHUNK) {
            int len = Math.min(CHUNK, n - from);
            levels(x, xo + from, len, scale, zeroPoint, 0f, chunk, 0);
            for (int i = 0; i < len; i++) {
                out[o + from + i] = (byte) (int) chunk[i];
            }
        }
    }

    /** One level, in plain Java: the reference the vector path is held to. */
    static float level(float x, float scale, float zeroPoint) {
        float q = (float) Math.rint(x / scale) + zeroPoint;
        return q >= 0 ? Math.min(q, QMAX) : 0f;
    }
}
