package io.ortex.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Checks the narrow float conversions against reference decoders written here from the format definitions, and
 * the encoders against a brute-force search for the nearest value.
 */
class NarrowFloatsTest {
    /** Decodes a pattern from the written definition of each format, with Math.pow rather than bit tricks. */
    static double reference(ElementType type, int b) {
        switch (type) {
            case FLOAT8E4M3FN: {
                if ((b & 0x7f) == 0x7f) {
                    return Double.NaN;
                }
                return signed(b, 0x80, common((b >> 3) & 15, b & 7, 3, 7));
            }
            case FLOAT8E4M3FNUZ:
                return b == 0x80 ? Double.NaN : signed(b, 0x80, common((b >> 3) & 15, b & 7, 3, 8));
            case FLOAT8E5M2: {
                int e = (b >> 2) & 31;
                if (e == 31) {
                    return (b & 3) != 0 ? Double.NaN : (b & 0x80) != 0 ? Double.NEGATIVE_INFINITY
                            : Double.POSITIVE_INFINITY;
                }
                return signed(b, 0x80, common(e, b & 3, 2, 15));
            }
            case FLOAT8E5M2FNUZ:
                return b == 0x80 ? Double.NaN : signed(b, 0x80, common((b >> 2) & 31, b & 3, 2, 16));
            case FLOAT8E8M0:
                return b == 255 ? Double.NaN : Math.pow(2, b - 127);
            case FLOAT4E2M1: {
                double[] magnitudes = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
                return signed(b, 8, magnitudes[b & 7]);
            }
            default:
                throw new IllegalArgumentException(type.name());
        }
    }

    private static double common(int e, int m, int mBits, int bias) {
        double frac = m / Math.pow(2, mBits);
        return e == 0 ? frac * Math.pow(2, 1 - bias) : (1 + frac) * Math.pow(2, e - bias);
    }

    private static double signed(int b, int signBit, double v) {
        return (b & signBit) != 0 ? -v : v;
    }

    private static int patterns(ElementType t) {
        return t == ElementType.FLOAT4E2M1 ? 16 : 256;
    }

    @ParameterizedTest
    @EnumSource(names = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "FLOAT8E8M0",
        "FLOAT4E2M1"})
    void everyPatternDecodesAsTheDefinitionSays(ElementType type) {
        float[] table = NarrowFloats.decodeTable(type);
        assertEquals(patterns(type), table.length);
        for (int b = 0; b < patterns(type); b++) {
            double want = reference(type, b);
            float got = NarrowFloats.toFloat(type, b);
            assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(got), type + " pattern " + b);
            assertEquals(Float.floatToIntBits(got), Float.floatToIntBits(table[b]));
            Tensor t = Tensor.of(type, new long[] {1}, new byte[] {(byte) b});
            assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(t.getDouble(0)));
            assertEquals(Double.isNaN(want) ? 0 : (long) want, t.getLong(0));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "FLOAT8E8M0",
        "FLOAT4E2M1"})
    void everyValueEncodesBackToItsPattern(ElementType type) {
        for (int b = 0; b < patterns(type); b++) {
            double v = reference(type, b);
            if (Double.isNaN(v)) {
                continue;
            }
            for (boolean saturate : new boolean[] {false, true}) {
                int want = b;
                if (Double.isInfinite(v) && saturate) {
                    want = (b & 0x80) | 0x7b;
                }
                assertEquals(want, NarrowFloats.fromDouble(type, v, saturate) & 0xff, type + " value " + v);
                assertEquals(want, NarrowFloats.fromDouble(type, (float) v, saturate) & 0xff);
            }
        }
    }

    /** Candidate inputs: every float16 value, the midpoints of the narrow values and their neighbours. */
    private static List<Double> probes(ElementType type) {
        List<Double> probes = new ArrayList<>();
        for (int h = 0; h < 0x10000; h++) {
            probes.add((double) HalfFloats.float16ToFloat((short) h));
        }
        List<Double> finite = new ArrayList<>();
        for (int b = 0; b < patterns(type); b++) {
            double v = reference(type, b);
            if (!Double.isNaN(v) && !Double.isInfinite(v)) {
                finite.add(v);
            }
        }
        finite.sort(Double::compare);
        for (int i = 0; i + 1 < finite.size(); i++) {
            double mid = (finite.get(i) + finite.get(i + 1)) / 2;
            probes.add(mid);
            probes.add(Math.nextUp(mid));
            probes.add(Math.nextDown(mid));
        }
        double max = finite.get(finite.size() - 1);
        for (double x : new double[] {max, Math.nextUp(max), max * 1.0625, max * 1.125, Math.nextDown(max * 1.125),
            max * 2, 1e300, Double.MIN_VALUE}) {
            probes.add(x);
            probes.add(-x);
        }
        Random r = new Random(7);
        for (int i = 0; i < 20000; i++) {
            probes.add(r.nextGaussian() * max / 4);
        }
        return probes;
    }

    /** The nearest finite pattern by exhaustive search, ties to the pattern with an even low bit. */
    private static int nearest(ElementType type, double x) {
        int best = -1;
        double bestErr = Double.POSITIVE_INFINITY;
        for (int b = 0; b < patterns(type); b++) {
            double v = reference(type, b);
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                continue;
            }
            double err = Math.abs(v - x);
            boolean sameSign = (Math.copySign(1, v) == Math.copySign(1, x)) || v != 0;
            if (err < bestErr || err == bestErr && ((b & 1) == 0 && sameSign)) {
                best = b;
                bestErr = err;
            }
        }
        return best;
    }

    @ParameterizedTest
    @EnumSource(names = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "FLOAT4E2M1"})
    void encodingRoundsToNearestEvenAndSaturates(ElementType type) {
        double max = 0;
        int maxBits = 0;
        for (int b = 0; b < patterns(type) / 2; b++) {
            double v = reference(type, b);
            if (!Double.isNaN(v) && !Double.isInfinite(v) && v > max) {
                max = v;
                maxBits = b;
            }
        }
        boolean fnuz = type == ElementType.FLOAT8E4M3FNUZ || type == ElementType.FLOAT8E5M2FNUZ;
        int signBit = type == ElementType.FLOAT4E2M1 ? 8 : 0x80;
        for (double x : probes(type)) {
            if (Double.isNaN(x) || Double.isInfinite(x)) {
                continue;
            }
            int sign = x < 0 || (x == 0 && 1 / x < 0) ? signBit : 0;
            int near = nearest(type, x);
            double nearValue = reference(type, near);
            // beyond the largest value: the value "rounds up" past it when it is nearer the next (missing) step
            double step = max - reference(type, maxBits - 1);
            boolean overflow = Math.abs(x) >= max + step / 2
                    && !(Math.abs(x) == max + step / 2 && (maxBits & 1) == 0);
            int saturated = overflow ? sign | maxBits : near;
            if (nearValue == 0) {
                saturated = fnuz ? 0 : sign;
            }
            assertEquals(saturated, NarrowFloats.fromDouble(type, x, true) & 0xff, type + " saturating " + x);
            int plain = saturated;
            if (overflow && type != ElementType.FLOAT4E2M1) {
                plain = fnuz ? 0x80 : type == ElementType.FLOAT8E5M2 ? sign | 0x7c : sign | 0x7f;
            }
            assertEquals(plain, NarrowFloats.fromDouble(type, x, false) & 0xff, type + " " + x);
        }
    }

    @Test
    void specialValuesFollowOnnx() {
        double inf = Double.POSITIVE_INFINITY;
        // saturate: infinities become the largest finite value of each format
        assertEquals(0x7e, bits(ElementType.FLOAT8E4M3FN, inf, true));
        assertEquals(0xfe, bits(ElementType.FLOAT8E4M3FN, -inf, true));
        assertEquals(0x7f, bits(ElementType.FLOAT8E4M3FNUZ, inf, true));
        assertEquals(0xff, bits(ElementType.FLOAT8E4M3FNUZ, -inf, true));
        assertEquals(0x7b, bits(ElementType.FLOAT8E5M2, inf, true));
        assertEquals(0xfb, bits(ElementType.FLOAT8E5M2, -inf, true));
        assertEquals(0x7f, bits(ElementType.FLOAT8E5M2FNUZ, inf, true));
        assertEquals(0x7, bits(ElementType.FLOAT4E2M1, inf, false));
        assertEquals(0xf, bits(ElementType.FLOAT4E2M1, -inf, false));
        // no saturation: NaN (E4M3FN keeps the sign), infinity for E5M2, 0x80 for FNUZ
        assertEquals(0x7f, bits(ElementType.FLOAT8E4M3FN, inf, false));
        assertEquals(0xff, bits(ElementType.FLOAT8E4M3FN, -1e6, false));
        assertEquals(0x80, bits(ElementType.FLOAT8E4M3FNUZ, -inf, false));
        assertEquals(0x7c, bits(ElementType.FLOAT8E5M2, 1e6, false));
        assertEquals(0xfc, bits(ElementType.FLOAT8E5M2, -inf, false));
        assertEquals(0x80, bits(ElementType.FLOAT8E5M2FNUZ, inf, false));
        // NaN
        assertEquals(0x7f, bits(ElementType.FLOAT8E4M3FN, Double.NaN, true));
        assertEquals(0x7e, bits(ElementType.FLOAT8E5M2, Double.NaN, false));
        assertEquals(0x80, bits(ElementType.FLOAT8E4M3FNUZ, Double.NaN, true));
        assertEquals(0x8, bits(ElementType.FLOAT4E2M1, Double.NaN, true));
        // negative zero survives where the format has one; underflow keeps the sign
        assertEquals(0x80, bits(ElementType.FLOAT8E4M3FN, -0.0, true));
        assertEquals(0x80, bits(ElementType.FLOAT8E5M2, -1e-7, true));
        assertEquals(0x00, bits(ElementType.FLOAT8E5M2FNUZ, -0.0, true));
        assertEquals(0x00, bits(ElementType.FLOAT8E4M3FNUZ, -1e-7, true));
        assertEquals(0x8, bits(ElementType.FLOAT4E2M1, -0.0, true));
        // values just past the largest finite value round back to it without saturation
        assertEquals(0x7e, bits(ElementType.FLOAT8E4M3FN, 464, false));
        assertEquals(0x7f, bits(ElementType.FLOAT8E4M3FN, Math.nextUp(464.0), false));
        // 0.25 lies halfway between 0 and 0.5 in E2M1 and goes to the even 0; 2.5 goes to 2, 3.5 to 4
        assertEquals(0x0, bits(ElementType.FLOAT4E2M1, 0.25, true));
        assertEquals(0x4, bits(ElementType.FLOAT4E2M1, 2.5, true));
        assertEquals(0xe, bits(ElementType.FLOAT4E2M1, -3.5, true));
    }

    @Test
    void e8m0IsAPowerOfTwoWithItsOwnRounding() {
        assertEquals(127, NarrowFloats.fromDouble(ElementType.FLOAT8E8M0, 1.0, true) & 0xff);
        assertEquals(128, NarrowFloats.fromDouble(ElementType.FLOAT8E8M0, 1.25, true) & 0xff, "up by default");
        assertEquals(127, NarrowFloats.toFloat8E8M0(1.75, true, NarrowFloats.E8M0Rounding.DOWN) & 0xff);
        assertEquals(127, NarrowFloats.toFloat8E8M0(1.25, true, NarrowFloats.E8M0Rounding.NEAREST) & 0xff);
        assertEquals(128, NarrowFloats.toFloat8E8M0(1.5, true, NarrowFloats.E8M0Rounding.NEAREST) & 0xff);
        assertEquals(128, NarrowFloats.toFloat8E8M0(-2.0, true, NarrowFloats.E8M0Rounding.UP) & 0xff,
                "the magnitude is encoded");
        assertEquals(0xff, NarrowFloats.toFloat8E8M0(Double.NaN, true, NarrowFloats.E8M0Rounding.UP) & 0xff);
        assertEquals(0xfe, NarrowFloats.toFloat8E8M0(Double.POSITIVE_INFINITY, true,
                NarrowFloats.E8M0Rounding.UP) & 0xff);
        assertEquals(0xff, NarrowFloats.toFloat8E8M0(Double.POSITIVE_INFINITY, false,
                NarrowFloats.E8M0Rounding.UP) & 0xff);
        assertEquals(0xff, NarrowFloats.toFloat8E8M0(Math.nextUp(0x1p127f), false,
                NarrowFloats.E8M0Rounding.UP) & 0xff, "rounding up past 2^127 overflows");
        assertEquals(0xfe, NarrowFloats.toFloat8E8M0(Math.nextUp(0x1p127f), true,
                NarrowFloats.E8M0Rounding.UP) & 0xff);
        assertEquals(0, NarrowFloats.toFloat8E8M0(0, true, NarrowFloats.E8M0Rounding.UP) & 0xff);
        assertEquals(0, NarrowFloats.toFloat8E8M0(0x1p-127, true, NarrowFloats.E8M0Rounding.UP) & 0xff);
        assertEquals(1, NarrowFloats.toFloat8E8M0(0x1.2p-127, true, NarrowFloats.E8M0Rounding.UP) & 0xff);
        for (int b = 0; b < 255; b++) {
            double v = reference(ElementType.FLOAT8E8M0, b);
            for (NarrowFloats.E8M0Rounding r : NarrowFloats.E8M0Rounding.values()) {
                assertEquals(b, NarrowFloats.toFloat8E8M0(v, true, r) & 0xff, "2^" + (b - 127) + " " + r);
            }
        }
    }

    @Test
    void otherTypesAreRefused() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> NarrowFloats.toFloat(ElementType.FLOAT16, 0));
        assertTrue(e.getMessage().contains("float16"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> NarrowFloats.fromDouble(ElementType.INT4, 1, true));
    }

    private static int bits(ElementType type, double v, boolean saturate) {
        return NarrowFloats.fromDouble(type, v, saturate) & 0xff;
    }
}
