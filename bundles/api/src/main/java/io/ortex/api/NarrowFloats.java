package io.ortex.api;

/**
 * Conversions between numbers and the 8- and 4-bit float formats that tensors hold as bit patterns, one element
 * per byte (see {@link ElementType}): {@code float8e4m3fn}, {@code float8e4m3fnuz}, {@code float8e5m2},
 * {@code float8e5m2fnuz}, {@code float8e8m0} and {@code float4e2m1}.
 *
 * <p>Decoding is exact: every value of these formats is a float. Encoding rounds to nearest, ties to even, from
 * the exact value of a double (so from any float as well), and follows ONNX's rules for what does not fit:
 * <ul>
 *   <li>NaN gives NaN: {@code S.1111.111} for E4M3FN and {@code S.11111.10} for E5M2, keeping the sign, and
 *       {@code 0x80} for the FNUZ formats. E2M1 has no NaN: NaN gives {@code 0x8}, as ONNX's reference does.</li>
 *   <li>With saturation, infinities and finite values that round beyond the largest finite value give that
 *       value with their sign; E2M1 always saturates.</li>
 *   <li>Without saturation they give NaN (E4M3FN keeps the sign; the FNUZ formats give {@code 0x80}) or, for
 *       E5M2, infinity.</li>
 *   <li>The FNUZ formats have no negative zero: negative values that round to zero give {@code 0x00}.</li>
 * </ul>
 * E8M0 holds only a biased exponent: {@code 2^(x-127)}, with {@code 0xFF} NaN; see {@link #toFloat8E8M0}.
 *
 * <p>All methods are pure functions, safe from any thread.
 */
public final class NarrowFloats {
    /** How a conversion to {@code float8e8m0} rounds a value that is not a power of two (Cast's round_mode). */
    public enum E8M0Rounding {
        /** To the next power of two above (ONNX's default, {@code up}). */
        UP,
        /** To the power of two below ({@code down}). */
        DOWN,
        /** To the nearer power of two, ties upwards ({@code nearest}). */
        NEAREST
    }

    private static final Format E4M3FN = new Format(4, 3, 7, 0x7e, false);
    private static final Format E4M3FNUZ = new Format(4, 3, 8, 0x7f, true);
    private static final Format E5M2 = new Format(5, 2, 15, 0x7b, false);
    private static final Format E5M2FNUZ = new Format(5, 2, 16, 0x7f, true);
    private static final Format E2M1 = new Format(2, 1, 1, 0x7, false);

    private static final float[] E4M3FN_VALUES = table(ElementType.FLOAT8E4M3FN);
    private static final float[] E4M3FNUZ_VALUES = table(ElementType.FLOAT8E4M3FNUZ);
    private static final float[] E5M2_VALUES = table(ElementType.FLOAT8E5M2);
    private static final float[] E5M2FNUZ_VALUES = table(ElementType.FLOAT8E5M2FNUZ);
    private static final float[] E8M0_VALUES = table(ElementType.FLOAT8E8M0);
    private static final float[] E2M1_VALUES = table(ElementType.FLOAT4E2M1);

    private NarrowFloats() {
    }

    /**
     * Decodes one element.
     *
     * @param type a narrow float type ({@link ElementType#isNarrowFloat()})
     * @param bits the element's pattern (the low 8 bits, or the low 4 for float4e2m1, are used)
     * @return the exact value
     * @throws InvalidArgumentException when the type is not a narrow float
     */
    public static float toFloat(ElementType type, int bits) {
        float[] t = values(type);
        return t[bits & (t.length - 1)];
    }

    /**
     * Gets the value of every pattern of a type, for decoding loops: entry {@code b} is the value of pattern
     * {@code b}.
     *
     * @param type a narrow float type
     * @return a new array of 256 values (16 for float4e2m1), which the caller may keep
     * @throws InvalidArgumentException when the type is not a narrow float
     */
    public static float[] decodeTable(ElementType type) {
        return values(type).clone();
    }

    /**
     * Encodes a value, rounding to nearest even, with ONNX's rules for NaN, infinity and overflow (see the class
     * description). A float8e8m0 target rounds {@linkplain E8M0Rounding#UP up}, ONNX's default.
     *
     * @param type a narrow float type
     * @param value the value
     * @param saturate whether values beyond the format's range give its largest finite value (float8 types and
     *        float8e8m0; float4e2m1 always saturates)
     * @return the pattern, in the low bits of the byte
     * @throws InvalidArgumentException when the type is not a narrow float
     */
    public static byte fromDouble(ElementType type, double value, boolean saturate) {
        switch (type) {
            case FLOAT8E4M3FN: return (byte) E4M3FN.encode(value, saturate);
            case FLOAT8E4M3FNUZ: return (byte) E4M3FNUZ.encode(value, saturate);
            case FLOAT8E5M2: return (byte) E5M2.encode(value, saturate);
            case FLOAT8E5M2FNUZ: return (byte) E5M2FNUZ.encode(value, saturate);
            case FLOAT4E2M1: return (byte) E2M1.encode(value, true);
            case FLOAT8E8M0: return toFloat8E8M0(value, saturate, E8M0Rounding.UP);
            default: throw notNarrow(type);
        }
    }

    /**
     * Encodes a value as float8e8m0, a power of two {@code 2^(x-127)} for x in 0..254. The format has no sign: the
     * magnitude is encoded. Zero gives the smallest value, {@code 0x00}; NaN gives {@code 0xFF}; infinity and
     * values that round beyond {@code 2^127} give {@code 0xFE} with saturation and {@code 0xFF} (NaN) without.
     * The value is first rounded to float, as ONNX's reference does.
     *
     * @param value the value
     * @param saturate whether overflow gives the largest value rather than NaN
     * @param rounding the rounding of values between two powers of two
     * @return the pattern
     */
    public static byte toFloat8E8M0(double value, boolean saturate, E8M0Rounding rounding) {
        float f = (float) value;
        if (Float.isNaN(f)) {
            return (byte) 0xff;
        }
        int bits = Float.floatToRawIntBits(f) & 0x7fffffff;
        int exp = bits >>> 23;
        int mant = bits & 0x7fffff;
        if (exp == 0xff) {
            return (byte) (saturate ? 0xfe : 0xff);
        }
        if (exp == 0) {
            // subnormal floats lie below 2^-126: 2^-127 has mantissa 0x400000
            boolean up = rounding == E8M0Rounding.UP ? mant > 0x400000
                    : rounding == E8M0Rounding.NEAREST && mant >= 0x600000;
            return (byte) (up ? 1 : 0);
        }
        boolean up = rounding == E8M0Rounding.UP ? mant != 0
                : rounding == E8M0Rounding.NEAREST && mant >= 0x400000;
        int e = exp + (up ? 1 : 0);
        if (e == 0xff) {
            return (byte) (saturate ? 0xfe : 0xff);
        }
        return (byte) e;
    }

    private static float[] values(ElementType type) {
        switch (type) {
            case FLOAT8E4M3FN: return E4M3FN_VALUES;
            case FLOAT8E4M3FNUZ: return E4M3FNUZ_VALUES;
            case FLOAT8E5M2: return E5M2_VALUES;
            case FLOAT8E5M2FNUZ: return E5M2FNUZ_VALUES;
            case FLOAT8E8M0: return E8M0_VALUES;
            case FLOAT4E2M1: return E2M1_VALUES;
            default: throw notNarrow(type);
        }
    }

    private static InvalidArgumentException notNarrow(ElementType type) {
        return new InvalidArgumentException(type + " is not an 8- or 4-bit float type");
    }

    private static float[] table(ElementType type) {
        float[] t = new float[type == ElementType.FLOAT4E2M1 ? 16 : 256];
        for (int b = 0; b < t.length; b++) {
            t[b] = decode(type, b);
        }
        return t;
    }

    private static float decode(ElementType type, int b) {
        switch (type) {
            case FLOAT8E4M3FN:
                return (b & 0x7f) == 0x7f ? Float.NaN : E4M3FN.decode(b);
            case FLOAT8E4M3FNUZ:
                return b == 0x80 ? Float.NaN : E4M3FNUZ.decode(b);
            case FLOAT8E5M2:
                if ((b & 0x7c) == 0x7c) {
                    return (b & 3) != 0 ? Float.NaN : (b & 0x80) != 0 ? Float.NEGATIVE_INFINITY
                            : Float.POSITIVE_INFINITY;
                }
                return E5M2.decode(b);
            case FLOAT8E5M2FNUZ:
                return b == 0x80 ? Float.NaN : E5M2FNUZ.decode(b);
            case FLOAT8E8M0:
                return b == 0xff ? Float.NaN : Math.scalb(1f, b - 127);
            default:
                return E2M1.decode(b);
        }
    }

    /** A sign-exponent-mantissa layout with its bias, its largest finite pattern and its NaN convention. */
    private static final class Format {
        private final int manBits;
        private final int minExponent;
        private final int signBit;
        private final int maxBits;
        private final double max;
        private final boolean unsignedZero;
        private final boolean hasInfinity;

        Format(int expBits, int manBits, int bias, int maxBits, boolean unsignedZero) {
            this.manBits = manBits;
            this.minExponent = 1 - bias;
            this.signBit = 1 << (expBits + manBits);
            this.maxBits = maxBits;
            this.unsignedZero = unsignedZero;
            this.hasInfinity = expBits == 5 && !unsignedZero;
            this.max = decode(maxBits);
        }

        float decode(int b) {
            int exp = (b >>> manBits) & ((signBit >>> manBits) - 1);
            int mant = b & ((1 << manBits) - 1);
            float v = exp == 0 ? Math.scalb((float) mant, minExponent - manBits)
                    : Math.scalb((float) ((1 << manBits) | mant), exp - 1 + minExponent - manBits);
            return (b & signBit) != 0 ? -v : v;
        }

        int encode(double value, boolean saturate) {
            boolean negative = Double.doubleToRawLongBits(value) < 0;
            int sign = negative ? signBit : 0;
            if (Double.isNaN(value)) {
                return nan(sign);
            }
            double a = Math.abs(value);
            if (a > 2 * max) {
                return overflow(sign, saturate);
            }
            int e = Math.max(Math.getExponent(a), minExponent);
            double n = Math.rint(Math.scalb(a, manBits - e));
            if (n == 0) {
                return unsignedZero ? 0 : sign;
            }
            if (Math.scalb(n, e - manBits) > max) {
                return overflow(sign, saturate);
            }
            return sign | (((e - minExponent) << manBits) + (int) n);
        }

        private int nan(int sign) {
            if (unsignedZero) {
                return 0x80;
            }
            if (signBit == 0x8) {
                return 0x8;
            }
            return sign | (hasInfinity ? 0x7e : 0x7f);
        }

        private int overflow(int sign, boolean saturate) {
            if (saturate) {
                return sign | maxBits;
            }
            if (unsignedZero) {
                return 0x80;
            }
            return sign | (hasInfinity ? 0x7c : 0x7f);
        }
    }
}
