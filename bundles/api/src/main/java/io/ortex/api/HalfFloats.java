package io.ortex.api;

/**
 * Conversions between {@code float} and the 16-bit float formats that tensors store as raw bits: IEEE 754 half
 * precision ({@code float16}) and brain float ({@code bfloat16}). Rounding is to nearest, ties to even.
 */
public final class HalfFloats {
    private HalfFloats() {
    }

    /**
     * Widens IEEE half-precision bits to a float.
     *
     * @param bits the 16-bit pattern
     * @return the exact float value
     */
    public static float float16ToFloat(short bits) {
        int h = bits & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exp = (h >>> 10) & 0x1f;
        int mant = h & 0x3ff;
        if (exp == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        if (exp == 0) {
            if (mant == 0) {
                return Float.intBitsToFloat(sign);
            }
            float v = mant * 0x1p-24f;
            return sign == 0 ? v : -v;
        }
        return Float.intBitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
    }

    /**
     * Narrows a float to IEEE half-precision bits, rounding to nearest even; overflow gives infinity.
     *
     * @param value the float
     * @return the 16-bit pattern
     */
    public static short floatToFloat16(float value) {
        int f = Float.floatToRawIntBits(value);
        int sign = (f >>> 16) & 0x8000;
        int exp = (f >>> 23) & 0xff;
        int mant = f & 0x7fffff;
        if (exp == 0xff) {
            return (short) (sign | 0x7c00 | (mant != 0 ? 0x200 | (mant >>> 13) : 0));
        }
        int e = exp - 127 + 15;
        if (e >= 0x1f) {
            return (short) (sign | 0x7c00);
        }
        if (e <= 0) {
            if (e < -10) {
                return (short) sign;
            }
            mant |= 0x800000;
            int shift = 14 - e;
            int half = mant >>> shift;
            int rem = mant & ((1 << shift) - 1);
            int mid = 1 << (shift - 1);
            if (rem > mid || (rem == mid && (half & 1) != 0)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = (e << 10) | (mant >>> 13);
        int rem = mant & 0x1fff;
        if (rem > 0x1000 || (rem == 0x1000 && (half & 1) != 0)) {
            half++;
        }
        return (short) (sign | half);
    }

    /**
     * Widens bfloat16 bits to a float.
     *
     * @param bits the 16-bit pattern
     * @return the exact float value
     */
    public static float bfloat16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xffff) << 16);
    }

    /**
     * Narrows a float to bfloat16 bits, rounding to nearest even; NaN stays NaN.
     *
     * @param value the float
     * @return the 16-bit pattern
     */
    public static short floatToBfloat16(float value) {
        int f = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            return (short) ((f >>> 16) | 0x40);
        }
        int rounding = 0x7fff + ((f >>> 16) & 1);
        return (short) ((f + rounding) >>> 16);
    }
}
