package io.ortex.ep.cpu.ops.tensor;

import static io.ortex.ep.cpu.OneNode.bytes;
import static io.ortex.ep.cpu.OneNode.in;
import static io.ortex.ep.cpu.OneNode.intAttr;
import static io.ortex.ep.cpu.OneNode.run1;
import static io.ortex.ep.cpu.OneNode.stringAttr;
import static io.ortex.ep.cpu.OneNode.unsigned;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import org.junit.jupiter.api.Test;

/** Cast and CastLike to and from the 8-, 4- and 2-bit types. */
class NarrowCastTest {
    private static final float INF = Float.POSITIVE_INFINITY;

    private static Tensor f32(float... v) {
        return Tensor.ofFloats(v, v.length);
    }

    @Test
    void floatToFloat8HonoursSaturate() {
        Tensor x = f32(1000f, -1000f, INF, -INF, Float.NaN, -0f, 1e-9f, 0.3f);
        Tensor sat = run1("Cast", 19, in(x), intAttr("to", ElementType.FLOAT8E4M3FN.code()));
        assertEquals(ElementType.FLOAT8E4M3FN, sat.type());
        // 0.3 = 1.2 * 2^-2: mantissa 0.2 * 8 = 1.6 rounds to 2 -> 0.3125, pattern 0 0101 010
        assertArrayEquals(new int[] {0x7e, 0xfe, 0x7e, 0xfe, 0x7f, 0x80, 0x00, 0x2a}, unsigned(sat));
        Tensor plain = run1("Cast", 19, in(x), intAttr("to", ElementType.FLOAT8E4M3FN.code()),
                intAttr("saturate", 0));
        assertArrayEquals(new int[] {0x7f, 0xff, 0x7f, 0xff, 0x7f, 0x80, 0x00, 0x2a}, unsigned(plain));
        Tensor e5 = run1("Cast", 19, in(x), intAttr("to", ElementType.FLOAT8E5M2.code()), intAttr("saturate", 0));
        assertArrayEquals(new int[] {0x64, 0xe4, 0x7c, 0xfc, 0x7e, 0x80, 0x00, 0x35}, unsigned(e5));
        Tensor uz = run1("Cast", 19, in(x), intAttr("to", ElementType.FLOAT8E5M2FNUZ.code()),
                intAttr("saturate", 0));
        assertEquals(0x80, unsigned(uz)[2], "no infinity: NaN");
        assertEquals(0x00, unsigned(uz)[5], "no negative zero");
    }

    @Test
    void float8DecodesExactlyAndConvertsBetweenFormats() {
        Tensor x = bytes(ElementType.FLOAT8E5M2, new long[] {5}, 0x7c, 0xfc, 0x7d, 0x80, 0x01);
        float[] f = run1("Cast", 19, in(x), intAttr("to", 1)).floats();
        assertEquals(INF, f[0]);
        assertEquals(-INF, f[1]);
        assertTrue(Float.isNaN(f[2]));
        assertEquals(Float.floatToIntBits(-0f), Float.floatToIntBits(f[3]));
        assertEquals(0x1p-16f, f[4], "smallest subnormal of E5M2");
        Tensor e4 = run1("Cast", 19, in(x), intAttr("to", ElementType.FLOAT8E4M3FN.code()));
        // infinities saturate to +-448; NaN stays NaN; 2^-16 is below half of E4M3FN's 2^-9 and goes to 0
        assertArrayEquals(new int[] {0x7e, 0xfe, 0x7f, 0x80, 0x00}, unsigned(e4));
        Tensor h = run1("Cast", 19, in(x), intAttr("to", ElementType.FLOAT16.code()));
        assertEquals(0x7c00, h.shorts()[0] & 0xffff);
        assertEquals(0x1p-16f, HalfFloats.float16ToFloat(h.shorts()[4]));
        double[] d = run1("Cast", 19, in(x), intAttr("to", ElementType.DOUBLE.code())).doubles();
        assertEquals(Double.NEGATIVE_INFINITY, d[1]);
    }

    @Test
    void negativeZeroAndFnuz() {
        Tensor h = Tensor.of(ElementType.FLOAT16, new long[] {2}, new short[] {(short) 0x8000, (short) 0xfc00});
        assertArrayEquals(new int[] {0x00, 0xff}, unsigned(run1("Cast", 19, in(h),
                intAttr("to", ElementType.FLOAT8E5M2FNUZ.code()))));
        assertArrayEquals(new int[] {0x80, 0xfb}, unsigned(run1("Cast", 19, in(h),
                intAttr("to", ElementType.FLOAT8E5M2.code()))));
        Tensor f4 = run1("Cast", 23, in(h), intAttr("to", ElementType.FLOAT4E2M1.code()));
        assertArrayEquals(new int[] {0x8, 0xf}, unsigned(f4), "float4 saturates -inf to -6");
    }

    @Test
    void integersWrapToFourAndTwoBits() {
        Tensor x = f32(-9f, -8.7f, 7.9f, 8f, 15f, 16f);
        Tensor i4 = run1("Cast", 21, in(x), intAttr("to", ElementType.INT4.code()));
        assertArrayEquals(new byte[] {7, -8, 7, -8, -1, 0}, i4.bytes());
        Tensor u4 = run1("Cast", 21, in(x), intAttr("to", ElementType.UINT4.code()));
        assertArrayEquals(new byte[] {7, 8, 7, 8, 15, 0}, u4.bytes());
        Tensor i2 = run1("Cast", 25, in(Tensor.ofLongs(new long[] {-3, -2, 1, 2, 5}, 5)),
                intAttr("to", ElementType.INT2.code()));
        assertArrayEquals(new byte[] {1, -2, 1, -2, 1}, i2.bytes());
        Tensor u2 = run1("Cast", 25, in(Tensor.ofLongs(new long[] {-1, 4, 3}, 3)),
                intAttr("to", ElementType.UINT2.code()));
        assertArrayEquals(new byte[] {3, 0, 3}, u2.bytes());
        Tensor back = run1("Cast", 21, in(i4), intAttr("to", ElementType.INT8.code()));
        assertArrayEquals(new byte[] {7, -8, 7, -8, -1, 0}, back.bytes());
        Tensor asFloat = run1("Cast", 21, in(u4), intAttr("to", 1));
        assertArrayEquals(new float[] {7, 8, 7, 8, 15, 0}, asFloat.floats());
        Tensor bool = run1("Cast", 21, in(i4), intAttr("to", ElementType.BOOL.code()));
        assertArrayEquals(new boolean[] {true, true, true, true, true, false}, bool.booleans());
    }

    @Test
    void stringsGoBothWays() {
        Tensor s = run1("Cast", 21, in(bytes(ElementType.INT4, new long[] {2}, -8, 7)), intAttr("to", 8));
        assertArrayEquals(new String[] {"-8", "7"}, s.strings());
        Tensor i4 = run1("Cast", 21, in(Tensor.ofStrings(new String[] {"7", "9", "-3"}, 3)),
                intAttr("to", ElementType.INT4.code()));
        assertArrayEquals(new byte[] {7, -7, -3}, i4.bytes());
        Tensor f8 = run1("Cast", 19, in(Tensor.ofStrings(new String[] {"1.0", "-inf", "nan"}, 3)),
                intAttr("to", ElementType.FLOAT8E4M3FN.code()));
        assertArrayEquals(new int[] {0x38, 0xfe, 0x7f}, unsigned(f8));
        Tensor text = run1("Cast", 19, in(f8), intAttr("to", 8));
        assertArrayEquals(new String[] {"1.0", "-448.0", "NaN"}, text.strings());
    }

    @Test
    void e8m0RoundModes() {
        Tensor x = f32(3f, 1f, 0.75f, -6f);
        int to = ElementType.FLOAT8E8M0.code();
        assertArrayEquals(new int[] {129, 127, 127, 130}, unsigned(run1("Cast", 25, in(x), intAttr("to", to))));
        assertArrayEquals(new int[] {128, 127, 126, 129}, unsigned(run1("Cast", 25, in(x), intAttr("to", to),
                stringAttr("round_mode", "down"))));
        assertArrayEquals(new int[] {129, 127, 127, 130}, unsigned(run1("Cast", 25, in(x), intAttr("to", to),
                stringAttr("round_mode", "nearest"))));
        OrtexException e = assertThrows(OrtexException.class, () -> run1("Cast", 25, in(x), intAttr("to", to),
                stringAttr("round_mode", "sideways")));
        assertTrue(e.getMessage().contains("round_mode"), e.getMessage());
        Tensor back = run1("Cast", 25, in(bytes(ElementType.FLOAT8E8M0, new long[] {3}, 0, 127, 255)),
                intAttr("to", 1));
        assertEquals(0x1p-127f, back.floats()[0]);
        assertEquals(1f, back.floats()[1]);
        assertTrue(Float.isNaN(back.floats()[2]));
    }

    @Test
    void castLikeTakesSaturateAndTheTargetType() {
        Tensor target = Tensor.of(ElementType.FLOAT8E4M3FNUZ, new long[] {0}, new byte[0]);
        Tensor x = f32(300f, -0.5f);
        assertArrayEquals(new int[] {0x7f, 0xb8}, unsigned(run1("CastLike", 19, in(x, target))));
        assertArrayEquals(new int[] {0x80, 0xb8}, unsigned(run1("CastLike", 19, in(x, target),
                intAttr("saturate", 0))));
    }
}
