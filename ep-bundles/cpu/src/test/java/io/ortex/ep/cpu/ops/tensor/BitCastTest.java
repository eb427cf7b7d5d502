package io.ortex.ep.cpu.ops.tensor;

import static io.ortex.ep.cpu.OneNode.bytes;
import static io.ortex.ep.cpu.OneNode.in;
import static io.ortex.ep.cpu.OneNode.intAttr;
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
import org.junit.jupiter.api.Test;

/** Unit tests of BitCast. */
class BitCastTest {
    private static Tensor f32(float[] v, long... shape) {
        return Tensor.ofFloats(v, shape);
    }

    private static Tensor u8(long[] shape, int... v) {
        return bytes(ElementType.UINT8, shape, v);
    }

    @Test
    void bitCastReinterpretsBits() {
        Tensor f = run1("BitCast", 26, in(f32(new float[] {1f, -0f}, 2)), intAttr("to", ElementType.INT32.code()));
        assertArrayEquals(new int[] {0x3f800000, 0x80000000}, f.ints());
        Tensor back = run1("BitCast", 26, in(f), intAttr("to", 1));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(back.floats()[1]));
        Tensor u4 = run1("BitCast", 26, in(bytes(ElementType.INT4, new long[] {2}, -1, -8)),
                intAttr("to", ElementType.UINT4.code()));
        assertArrayEquals(new byte[] {15, 8}, u4.bytes());
        Tensor f8 = run1("BitCast", 26, in(u8(new long[] {1}, 0x38)), intAttr("to",
                ElementType.FLOAT8E4M3FN.code()));
        assertEquals(1.0, f8.getDouble(0));
        Tensor b = run1("BitCast", 26, in(Tensor.ofBooleans(new boolean[] {true, false}, 2)), intAttr("to", 2));
        assertArrayEquals(new int[] {1, 0}, unsigned(b));
        Tensor h = run1("BitCast", 26, in(Tensor.of(ElementType.UINT16, new long[] {1}, new short[] {0x3c00})),
                intAttr("to", ElementType.FLOAT16.code()));
        assertEquals(1f, HalfFloats.float16ToFloat(h.shorts()[0]));
        OrtexException e = assertThrows(OrtexException.class, () -> run1("BitCast", 26,
                in(f32(new float[] {1f}, 1)), intAttr("to", ElementType.INT64.code())));
        assertTrue(e.getMessage().contains("widths"), e.getMessage());
    }
}
