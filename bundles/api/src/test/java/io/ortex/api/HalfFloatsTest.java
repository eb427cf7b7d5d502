package io.ortex.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class HalfFloatsTest {
    private static int f16(float v) {
        return HalfFloats.floatToFloat16(v) & 0xffff;
    }

    private static int bf16(float v) {
        return HalfFloats.floatToBfloat16(v) & 0xffff;
    }

    @Test
    void float16WideningIsExactForEveryPattern() {
        for (int i = 0; i < 0x10000; i++) {
            int h = i;
            float f = HalfFloats.float16ToFloat((short) h);
            boolean nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
            assertEquals(nan, Float.isNaN(f), () -> "pattern " + Integer.toHexString(h));
            if (!nan) {
                int back = f16(f);
                assertEquals(h, back, () -> "pattern " + Integer.toHexString(h) + " -> " + f);
            } else {
                assertTrue(Float.isNaN(HalfFloats.float16ToFloat((short) f16(f))));
            }
        }
    }

    @Test
    void float16KnownValues() {
        assertEquals(0x3c00, f16(1f));
        assertEquals(0xc000, f16(-2f));
        assertEquals(0x7bff, f16(65504f));
        assertEquals(0x0400, f16(0x1p-14f));
        assertEquals(0x8000, f16(-0f));
        assertEquals(0x7c00, f16(Float.POSITIVE_INFINITY));
        assertEquals(0xfc00, f16(Float.NEGATIVE_INFINITY));
        assertEquals(1.0009765625f, HalfFloats.float16ToFloat((short) 0x3c01));
    }

    @Test
    void float16SubnormalsRoundToNearestEven() {
        assertEquals(0x0001, f16(0x1p-24f), "smallest subnormal");
        assertEquals(0x03ff, f16(0x3ffp-24f), "largest subnormal");
        assertEquals(0x0000, f16(0x1p-25f), "half the smallest subnormal ties to even zero");
        assertEquals(0x8000, f16(-0x1p-25f), "and keeps the sign");
        assertEquals(0x0001, f16(Math.nextUp(0x1p-25f)), "just above the tie rounds up");
        assertEquals(0x0002, f16(0x3p-25f), "1.5 subnormal steps tie to even 2");
        assertEquals(0x0002, f16(0x5p-25f), "2.5 subnormal steps tie to even 2");
        assertEquals(0x0000, f16(0x1p-26f));
        assertEquals(0x0000, f16(Float.MIN_VALUE), "float subnormals vanish");
        assertEquals(0x0400, f16(0x7ffp-25f), "rounding up out of the subnormals gives the smallest normal");
        assertEquals(0x1p-24f, HalfFloats.float16ToFloat((short) 1));
        assertEquals(-0x3ffp-24f, HalfFloats.float16ToFloat((short) 0x83ff));
    }

    @Test
    void float16OverflowGivesInfinity() {
        assertEquals(0x7bff, f16(65519.99f), "below the midpoint to infinity stays at the maximum");
        assertEquals(0x7c00, f16(65520f), "the midpoint ties to even, which is infinity");
        assertEquals(0x7c00, f16(1e6f));
        assertEquals(0xfc00, f16(-Float.MAX_VALUE));
    }

    @Test
    void float16TiesToEvenInTheNormalRange() {
        assertEquals(0x3c00, f16(1f + 0x1p-11f), "tie between 0x3c00 and 0x3c01 goes to even");
        assertEquals(0x3c02, f16(1f + 0x3p-11f), "tie between 0x3c01 and 0x3c02 goes to even");
        assertEquals(0x3c01, f16(Math.nextUp(1f + 0x1p-11f)));
        assertEquals(0x4000, f16(Math.nextDown(2f)), "rounding carries into the exponent");
    }

    @Test
    void float16NanStaysNan() {
        for (int bits : new int[] {0x7fc00000, 0x7f800001, 0xffc00000, 0x7f802000}) {
            int h = f16(Float.intBitsToFloat(bits));
            assertEquals(0x7c00, h & 0x7c00);
            assertTrue((h & 0x3ff) != 0, () -> "NaN " + Integer.toHexString(bits) + " became infinity");
            assertEquals(bits < 0 ? 0x8000 : 0, h & 0x8000);
        }
    }

    /** Checks that narrowing picks a nearest float16, and the even one on a tie. */
    @Test
    void float16RoundsToNearestForRandomFloats() {
        Random r = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            float v = Float.intBitsToFloat(r.nextInt());
            if (Float.isNaN(v) || Math.abs(v) >= 65520f) {
                continue;
            }
            int h = f16(v);
            double chosen = HalfFloats.float16ToFloat((short) h);
            double err = Math.abs(chosen - v);
            for (int n : new int[] {h - 1, h + 1}) {
                if ((n & 0x7fff) >= 0x7c00 || (n & 0xffff) != n || ((h ^ n) & 0x8000) != 0) {
                    continue;
                }
                double other = Math.abs(HalfFloats.float16ToFloat((short) n) - v);
                assertTrue(err < other || err == other && (h & 1) == 0,
                        () -> v + " -> " + Integer.toHexString(h) + " is not the nearest even");
            }
        }
    }

    @Test
    void bfloat16RoundTripsEveryPattern() {
        for (int b = 0; b < 0x10000; b++) {
            float f = HalfFloats.bfloat16ToFloat((short) b);
            assertEquals(b << 16, Float.floatToRawIntBits(f));
            if (!Float.isNaN(f)) {
                assertEquals(b, bf16(f));
            }
        }
    }

    @Test
    void bfloat16RoundsToNearestEven() {
        assertEquals(0x3f80, bf16(1f + 0x1p-8f), "tie goes to even");
        assertEquals(0x3f82, bf16(1f + 0x3p-8f), "tie goes to even, upwards");
        assertEquals(0x3f81, bf16(Math.nextUp(1f + 0x1p-8f)));
        assertEquals(0x7f80, bf16(Float.MAX_VALUE), "overflow gives infinity");
        assertEquals(0xff80, bf16(-Float.MAX_VALUE));
        assertEquals(0x7f7f, bf16(Float.intBitsToFloat(0x7f7f7fff)));
        assertEquals(0x0000, bf16(Float.MIN_VALUE), "the smallest float subnormal ties to zero");
        assertEquals(0x0001, bf16(Float.intBitsToFloat(0x00010000)), "subnormals are kept");
        assertEquals(0x0002, bf16(Float.intBitsToFloat(0x00018000)), "subnormal tie goes to even");
        assertEquals(0x8000, bf16(-0f));
        assertEquals(0x7f80, bf16(Float.POSITIVE_INFINITY));
    }

    @Test
    void bfloat16NanStaysNan() {
        for (int bits : new int[] {0x7fc00000, 0x7f800001, 0xff800001, 0x7fffffff}) {
            float back = HalfFloats.bfloat16ToFloat((short) bf16(Float.intBitsToFloat(bits)));
            assertTrue(Float.isNaN(back), () -> "NaN " + Integer.toHexString(bits) + " became " + back);
            assertEquals(bits < 0, (Float.floatToRawIntBits(back) & 0x80000000) != 0);
        }
    }
}
