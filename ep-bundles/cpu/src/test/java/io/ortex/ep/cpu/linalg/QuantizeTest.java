package io.ortex.ep.cpu.linalg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The quantization loops (on the Vector API where the JVM offers it, in plain Java otherwise) against
 * DynamicQuantizeLinear's definition computed in double: the levels bit for bit, ties rounded to even, saturation at
 * both ends, and lengths that leave tails after the whole vectors.
 */
class QuantizeTest {
    /** The definition: {@code clamp(rint(x / scale) + zeroPoint, 0, 255)} with the quotient rounded to float. */
    private static float reference(float x, float scale, int zeroPoint) {
        double q = Math.rint(x / scale) + zeroPoint;
        return Double.isNaN(q) ? 0f : (float) Math.max(0, Math.min(255, q));
    }

    /** Values around every tie of the scale, the saturation edges, and the specials. */
    private static float[] values(float scale, int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] x = new float[n];
        float[] specials = {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MAX_VALUE,
            -Float.MAX_VALUE, Float.MIN_VALUE, 1e30f, -1e30f};
        for (int i = 0; i < n; i++) {
            if (i % 97 < specials.length) {
                x[i] = specials[i % 97];
            } else if (i % 3 == 0) {
                // exact ties k + 0.5 of the scale (the scale is a power of two here), odd and even k
                x[i] = (r.nextInt(700) - 350 + 0.5f) * scale;
            } else {
                x[i] = (float) ((r.nextDouble() * 700 - 350) * scale);
            }
        }
        return x;
    }

    @Test
    void levelsEqualTheDefinitionBitForBit() {
        for (float scale : new float[] {0.125f, 1f / 64, 0.0037f, 3f}) {
            for (int zeroPoint : new int[] {0, 1, 128, 254, 255}) {
                for (int n : new int[] {1, 7, 33, 1000}) {
                    float[] x = values(scale, n, n + zeroPoint);
                    float[] got = new float[n + 3];
                    Quantize.levels(x, 0, n, scale, zeroPoint, 0f, got, 3);
                    float[] centred = new float[n];
                    Quantize.levels(x, 0, n, scale, zeroPoint, zeroPoint, centred, 0);
                    byte[] bytes = new byte[n];
                    Quantize.toBytes(x, 0, n, scale, zeroPoint, bytes, 0);
                    for (int i = 0; i < n; i++) {
                        float want = reference(x[i], scale, zeroPoint);
                        String what = "x=" + x[i] + " scale=" + scale + " zero point=" + zeroPoint;
                        assertEquals(Float.floatToIntBits(want), Float.floatToIntBits(got[i + 3]), what);
                        assertEquals(want - zeroPoint, centred[i], 0f, what);
                        assertEquals((int) want, bytes[i] & 0xff, what);
                    }
                }
            }
        }
    }

    @Test
    void tiesRoundToEven() {
        float[] x = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 253.5f, 254.5f, 0.49999997f, 1.5000001f};
        float[] got = new float[x.length];
        Quantize.levels(x, 0, x.length, 1f, 10f, 0f, got, 0);
        assertArrayEquals(new float[] {10, 12, 12, 10, 8, 8, 255, 255, 10, 12}, got);
    }

    @Test
    void theRangeIncludesZeroAndCarriesNaN() {
        SplittableRandom r = new SplittableRandom(3);
        for (int n : new int[] {0, 1, 5, 64, 1001}) {
            float[] x = new float[n];
            float min = 0;
            float max = 0;
            for (int i = 0; i < n; i++) {
                x[i] = (float) (r.nextDouble() * 10 + 1);
                min = Math.min(min, x[i]);
                max = Math.max(max, x[i]);
            }
            assertArrayEquals(new float[] {min, max}, Quantize.range(x, 0, n), "n=" + n);
            if (n > 0) {
                for (int i = 0; i < n; i++) {
                    x[i] = -x[i];
                }
                assertArrayEquals(new float[] {-max, 0f}, Quantize.range(x, 0, n), "negated, n=" + n);
                x[n / 2] = Float.NaN;
                float[] withNaN = Quantize.range(x, 0, n);
                assertTrue(Float.isNaN(withNaN[0]) && Float.isNaN(withNaN[1]), "NaN at " + n / 2 + " of " + n);
            }
        }
    }
}
