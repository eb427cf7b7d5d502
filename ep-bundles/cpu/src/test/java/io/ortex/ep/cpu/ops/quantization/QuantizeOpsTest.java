package io.ortex.ep.cpu.ops.quantization;

import static io.ortex.ep.cpu.OneNode.bytes;
import static io.ortex.ep.cpu.OneNode.in;
import static io.ortex.ep.cpu.OneNode.intAttr;
import static io.ortex.ep.cpu.OneNode.run;
import static io.ortex.ep.cpu.OneNode.run1;
import static io.ortex.ep.cpu.OneNode.unsigned;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Unit tests of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear. */
class QuantizeOpsTest {
    private static Tensor f32(float[] v, long... shape) {
        return Tensor.ofFloats(v, shape);
    }

    private static Tensor scalar(float v) {
        return Tensor.ofFloats(new float[] {v});
    }

    private static Tensor u8(long[] shape, int... v) {
        return bytes(ElementType.UINT8, shape, v);
    }

    @Test
    void quantizeRoundsHalfToEvenAndClamps() {
        Tensor x = f32(new float[] {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300f, -300f, 2.4999f}, 8);
        Tensor zp = u8(new long[0], 128);
        Tensor y = run1("QuantizeLinear", 10, in(x, scalar(1f), zp));
        assertEquals(ElementType.UINT8, y.type());
        assertArrayEquals(new int[] {128, 130, 130, 128, 126, 255, 0, 130}, unsigned(y));
        Tensor i8 = run1("QuantizeLinear", 13, in(x, scalar(0.5f), bytes(ElementType.INT8, new long[0], -1)));
        // x / 0.5 = 1, 3, 5, -1, -3, 600, -600, 4.9998 -> + (-1), clamped to [-128, 127]
        assertArrayEquals(new byte[] {0, 2, 4, -2, -4, 127, -128, 4}, i8.bytes());
        Tensor noZeroPoint = run1("QuantizeLinear", 10, in(f32(new float[] {-1f, 3.5f}, 2), scalar(1f)));
        assertEquals(ElementType.UINT8, noZeroPoint.type());
        assertArrayEquals(new int[] {0, 4}, unsigned(noZeroPoint));
        Tensor scalarX = run1("QuantizeLinear", 13, in(f32(new float[] {2.5f}), scalar(1f), zp));
        assertEquals(0, scalarX.rank());
        assertEquals(130, unsigned(scalarX)[0]);
        Tensor empty = run1("QuantizeLinear", 13, in(f32(new float[0], 0, 3), scalar(1f), zp));
        assertArrayEquals(new long[] {0, 3}, empty.shape());
    }

    @Test
    void quantizeSixteenBitAndGeneralPrecisionPaths() {
        Tensor x = f32(new float[] {70000f, -5f, 2.5f}, 3);
        Tensor u16 = run1("QuantizeLinear", 21, in(x, scalar(1f), Tensor.of(ElementType.UINT16, new long[0],
                new short[] {10})));
        assertArrayEquals(new short[] {(short) 65535, 5, 12}, u16.shorts());
        // a float16 scale divides in float16: 2.5 / 1 stays 2.5 -> 2; an int32 x goes through the general path
        Tensor h = Tensor.of(ElementType.FLOAT16, new long[0], new short[] {HalfFloats.floatToFloat16(1f)});
        assertArrayEquals(new byte[] {127, -5, 2}, run1("QuantizeLinear", 19, in(x, h,
                bytes(ElementType.INT8, new long[0], 0))).bytes());
        Tensor ints = Tensor.ofInts(new int[] {5, -7, 300}, 3);
        assertArrayEquals(new int[] {2, 0, 150}, unsigned(run1("QuantizeLinear", 10, in(ints, scalar(2f)))));
    }

    @Test
    void quantizePerAxisWithNegativeAxis() {
        Tensor x = f32(new float[] {1, 2, 3, 4, 5, 6}, 1, 2, 3);
        Tensor scale = f32(new float[] {1f, 2f}, 2);
        Tensor zp = u8(new long[] {2}, 0, 10);
        Tensor y = run1("QuantizeLinear", 13, in(x, scale, zp), intAttr("axis", -2));
        assertArrayEquals(new int[] {1, 2, 3, 12, 12, 13}, unsigned(y));
        Tensor byDefault = run1("QuantizeLinear", 13, in(x, scale, zp));
        assertArrayEquals(unsigned(y), unsigned(byDefault), "axis defaults to 1");
        OrtexException old = assertThrows(OrtexException.class, () -> run1("QuantizeLinear", 10, in(x, scale, zp)));
        assertTrue(old.getMessage().contains("scalar"), old.getMessage());
        OrtexException wrong = assertThrows(OrtexException.class, () -> run1("QuantizeLinear", 13,
                in(x, scale, zp), intAttr("axis", 2)));
        assertTrue(wrong.getMessage().contains("per-axis"), wrong.getMessage());
    }

    @Test
    void blockedQuantizationUsesOneScalePerBlock() {
        // x is 2x5, blocks of 2 along axis 1: scale is 2x3 and the last block holds one column
        Tensor x = f32(new float[] {2, 4, 6, 8, 10, 20, 40, 60, 80, 100}, 2, 5);
        Tensor scale = f32(new float[] {2, 4, 5, 10, 20, 50}, 2, 3);
        Tensor zp = u8(new long[] {2, 3}, 0, 1, 2, 3, 4, 5);
        Tensor y = run1("QuantizeLinear", 21, in(x, scale, zp), intAttr("axis", 1), intAttr("block_size", 2));
        assertArrayEquals(new int[] {1, 2, 3, 3, 4, 5, 7, 7, 8, 7}, unsigned(y));
        Tensor back = run1("DequantizeLinear", 21, in(y, scale, zp), intAttr("axis", 1), intAttr("block_size", 2));
        // 6 / 4 = 1.5 rounded to 2 (even) comes back as (3 - 1) * 4 = 8
        assertArrayEquals(new float[] {2, 4, 8, 8, 10, 20, 40, 60, 80, 100}, back.floats());
        // blocks along axis 0 of a 3x2 tensor
        Tensor x0 = f32(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);
        Tensor s0 = f32(new float[] {1, 2, 0.5f, 0.25f}, 2, 2);
        Tensor y0 = run1("QuantizeLinear", 21, in(x0, s0), intAttr("axis", 0), intAttr("block_size", 2));
        assertArrayEquals(new int[] {1, 1, 3, 2, 10, 24}, unsigned(y0));
        OrtexException bad = assertThrows(OrtexException.class, () -> run1("QuantizeLinear", 21,
                in(x, f32(new float[] {1, 1, 1, 1}, 2, 2)), intAttr("axis", 1), intAttr("block_size", 2)));
        assertTrue(bad.getMessage().contains("2x3"), bad.getMessage());
    }

    @Test
    void narrowIntegerOutputsClamp() {
        Tensor x = f32(new float[] {-20f, -8.5f, -1.5f, 0.5f, 6.5f, 7.5f, 20f}, 7);
        Tensor i4 = run1("QuantizeLinear", 21, in(x, scalar(1f)), intAttr("output_dtype", ElementType.INT4.code()));
        assertEquals(ElementType.INT4, i4.type());
        assertArrayEquals(new byte[] {-8, -8, -2, 0, 6, 7, 7}, i4.bytes());
        Tensor u4 = run1("QuantizeLinear", 21, in(x, scalar(1f), bytes(ElementType.UINT4, new long[0], 3)));
        assertArrayEquals(new byte[] {0, 0, 1, 3, 9, 11, 15}, u4.bytes());
        Tensor i2 = run1("QuantizeLinear", 25, in(x, scalar(1f), bytes(ElementType.INT2, new long[0], 0)));
        assertArrayEquals(new byte[] {-2, -2, -2, 0, 1, 1, 1}, i2.bytes());
        Tensor u2 = run1("QuantizeLinear", 25, in(x, scalar(4f)), intAttr("output_dtype", ElementType.UINT2.code()));
        assertArrayEquals(new byte[] {0, 0, 0, 0, 2, 2, 3}, u2.bytes());
        OrtexException clash = assertThrows(OrtexException.class, () -> run1("QuantizeLinear", 21,
                in(x, scalar(1f), bytes(ElementType.INT8, new long[0], 0)),
                intAttr("output_dtype", ElementType.INT4.code())));
        assertTrue(clash.getMessage().contains("output_dtype"), clash.getMessage());
    }

    @Test
    void float8OutputsSaturateOnRequest() {
        Tensor x = f32(new float[] {1000f, -1000f, 1f, Float.NaN, 0.1f}, 5);
        Tensor zp = bytes(ElementType.FLOAT8E4M3FN, new long[0], 0);
        Tensor sat = run1("QuantizeLinear", 19, in(x, scalar(1f), zp));
        assertEquals(ElementType.FLOAT8E4M3FN, sat.type());
        // 0.1 = 1.6 * 2^-4: mantissa 0.6 * 8 = 4.8 -> 5, pattern 0 0011 101
        assertArrayEquals(new int[] {0x7e, 0xfe, 0x38, 0x7f, 0x1d}, unsigned(sat));
        Tensor plain = run1("QuantizeLinear", 19, in(x, scalar(1f), zp), intAttr("saturate", 0));
        assertArrayEquals(new int[] {0x7f, 0xff, 0x38, 0x7f, 0x1d}, unsigned(plain));
        Tensor f4 = run1("QuantizeLinear", 23, in(x, scalar(2f)), intAttr("output_dtype",
                ElementType.FLOAT4E2M1.code()));
        // 500 -> 6, -500 -> -6, 0.5, NaN -> 0x8, 0.05 -> 0
        assertArrayEquals(new int[] {0x7, 0xf, 0x1, 0x8, 0x0}, unsigned(f4));
    }

    @Test
    void dequantizeIntegersFloatsAndNarrowTypes() {
        Tensor x = u8(new long[] {4}, 0, 3, 128, 255);
        Tensor y = run1("DequantizeLinear", 10, in(x, scalar(2f), u8(new long[0], 128)));
        assertArrayEquals(new float[] {-256, -250, 0, 254}, y.floats());
        Tensor ints = run1("DequantizeLinear", 10, in(Tensor.ofInts(new int[] {-4, 6}, 2), scalar(0.5f)));
        assertArrayEquals(new float[] {-2, 3}, ints.floats());
        Tensor i4 = run1("DequantizeLinear", 21, in(bytes(ElementType.INT4, new long[] {2, 2}, -8, 7, -1, 2),
                f32(new float[] {1f, 10f}, 2), bytes(ElementType.INT4, new long[] {2}, 0, 1)), intAttr("axis", 0));
        assertArrayEquals(new float[] {-8, 7, -20, 10}, i4.floats());
        Tensor half = Tensor.of(ElementType.FLOAT16, new long[0], new short[] {HalfFloats.floatToFloat16(0.5f)});
        Tensor f8 = run1("DequantizeLinear", 19, in(bytes(ElementType.FLOAT8E4M3FN, new long[] {3}, 0x38, 0xc0,
                0x7f), half));
        assertEquals(ElementType.FLOAT16, f8.type());
        assertEquals(0.5f, HalfFloats.float16ToFloat(f8.shorts()[0]));
        assertEquals(-1f, HalfFloats.float16ToFloat(f8.shorts()[1]));
        assertTrue(Float.isNaN(HalfFloats.float16ToFloat(f8.shorts()[2])));
        Tensor asFloat = run1("DequantizeLinear", 23, in(bytes(ElementType.UINT2, new long[] {2}, 3, 1), half),
                intAttr("output_dtype", 1));
        assertArrayEquals(new float[] {1.5f, 0.5f}, asFloat.floats());
        Tensor e8m0 = bytes(ElementType.FLOAT8E8M0, new long[0], 129);
        Tensor scaledByE8m0 = run1("DequantizeLinear", 24, in(bytes(ElementType.FLOAT4E2M1, new long[] {2}, 0x3,
                0xd), e8m0), intAttr("output_dtype", 1));
        assertArrayEquals(new float[] {6f, -12f}, scaledByE8m0.floats());
        OrtexException mixed = assertThrows(OrtexException.class, () -> run1("DequantizeLinear", 13,
                in(x, scalar(1f), bytes(ElementType.INT8, new long[0], 0))));
        assertTrue(mixed.getMessage().contains("zero point"), mixed.getMessage());
    }

    @Test
    void dynamicQuantizeComputesScaleAndZeroPoint() {
        float[] v = {0f, 2f, -3f, -2.5f, 1.34f, 0.5f};
        List<Tensor> out = run("DynamicQuantizeLinear", 11, in(f32(v, 2, 3)), 3);
        float scale = out.get(1).floats()[0];
        assertEquals(5f / 255f, scale);
        assertEquals(153, unsigned(out.get(2))[0]);
        int[] y = unsigned(out.get(0));
        assertArrayEquals(new long[] {2, 3}, out.get(0).shape());
        for (int i = 0; i < v.length; i++) {
            long want = Math.max(0, Math.min(255, (long) Math.rint(v[i] / scale) + 153));
            assertEquals(want, y[i], "element " + i);
        }
        assertEquals(255, y[1]);
        assertEquals(0, y[2]);
        List<Tensor> positive = run("DynamicQuantizeLinear", 11, in(f32(new float[] {1f, 2f}, 2)), 3);
        assertEquals(0, unsigned(positive.get(2))[0], "the range includes 0, so the zero point is 0");
        float ps = positive.get(1).floats()[0];
        assertEquals(2f / 255f, ps);
        assertArrayEquals(new int[] {(int) Math.rint(1f / ps), 255}, unsigned(positive.get(0)));
        List<Tensor> zeros = run("DynamicQuantizeLinear", 11, in(f32(new float[] {0f, 0f}, 2)), 3);
        assertEquals(0f, zeros.get(1).floats()[0]);
        assertArrayEquals(new int[] {0, 0}, unsigned(zeros.get(0)));
    }
}
