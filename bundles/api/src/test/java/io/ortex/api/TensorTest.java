package io.ortex.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class TensorTest {
    @Test
    void factoriesKeepTypeShapeAndArray() {
        float[] data = {1, 2, 3, 4, 5, 6};
        Tensor t = Tensor.ofFloats(data, 2, 3);
        assertEquals(ElementType.FLOAT, t.type());
        assertArrayEquals(new long[] {2, 3}, t.shape());
        assertEquals(2, t.rank());
        assertEquals(3, t.dim(1));
        assertEquals(6, t.size());
        assertSame(data, t.floats(), "the tensor owns the array without copying it");
        assertSame(data, t.data());
        assertArrayEquals(new long[] {1}, Tensor.ofLongs(new long[] {1}, 1).longs());
        assertArrayEquals(new int[] {1}, Tensor.ofInts(new int[] {1}, 1).ints());
        assertArrayEquals(new double[] {1}, Tensor.ofDoubles(new double[] {1}, 1).doubles());
        assertArrayEquals(new boolean[] {true}, Tensor.ofBooleans(new boolean[] {true}, 1).booleans());
        assertArrayEquals(new String[] {"a"}, Tensor.ofStrings(new String[] {"a"}, 1).strings());
    }

    @Test
    void shapeIsCopiedBothWays() {
        long[] shape = {2, 2};
        Tensor t = Tensor.ofFloats(new float[4], shape);
        shape[0] = 4;
        assertArrayEquals(new long[] {2, 2}, t.shape());
        t.shape()[1] = 9;
        assertEquals(2, t.dim(1));
    }

    @Test
    void scalarsAndZeroSizedTensors() {
        Tensor scalar = Tensor.ofFloats(new float[] {7});
        assertEquals(0, scalar.rank());
        assertEquals(1, scalar.size());
        assertEquals("scalar", Tensor.shapeString(scalar.shape()));
        Tensor empty = Tensor.zeros(ElementType.INT64, 3, 0, 5);
        assertEquals(0, empty.size());
        assertEquals(0, empty.longs().length);
        assertEquals(0, Tensor.checkedElementCount(new long[] {1L << 40, 0, 1L << 40}),
                "a zero dimension makes any shape empty");
    }

    @Test
    void zerosFillEveryType() {
        for (ElementType t : ElementType.values()) {
            if (!t.isSupported()) {
                assertThrows(NotImplementedException.class, () -> Tensor.zeros(t, 2));
                continue;
            }
            Tensor z = Tensor.zeros(t, 2, 2);
            assertEquals(4, z.size());
            assertEquals(t.storage(), z.data().getClass());
            if (t == ElementType.STRING) {
                assertArrayEquals(new String[] {"", "", "", ""}, z.strings());
            } else if (t == ElementType.FLOAT8E8M0) {
                assertEquals(0x1p-127, z.getDouble(3), "e8m0 has no zero: pattern 0 is its smallest value");
            } else {
                assertEquals(0.0, z.getDouble(3));
            }
        }
    }

    @Test
    void badArraysAreRefused() {
        InvalidArgumentException wrongClass = assertThrows(InvalidArgumentException.class,
                () -> Tensor.of(ElementType.FLOAT, new long[] {2}, new double[2]));
        assertTrue(wrongClass.getMessage().contains("float[]"), wrongClass.getMessage());
        InvalidArgumentException wrongLength = assertThrows(InvalidArgumentException.class,
                () -> Tensor.ofFloats(new float[3], 2, 2));
        assertTrue(wrongLength.getMessage().contains("2x2"), wrongLength.getMessage());
        assertThrows(InvalidArgumentException.class, () -> Tensor.ofFloats(new float[0], -1));
        NotImplementedException unsupported = assertThrows(NotImplementedException.class,
                () -> Tensor.of(ElementType.COMPLEX64, new long[] {1}, new float[2]));
        assertTrue(unsupported.getMessage().contains("complex64"), unsupported.getMessage());
        assertThrows(NullPointerException.class, () -> Tensor.of(ElementType.FLOAT, new long[] {1}, null));
    }

    @Test
    void shapesTooLargeAreRefusedBeforeAllocating() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Tensor.zeros(ElementType.FLOAT, 1L << 40, 1L << 40));
        assertTrue(e.getMessage().contains("1099511627776x1099511627776"), e.getMessage());
        assertTrue(e.getMessage().contains("too large"), e.getMessage());
        assertThrows(InvalidArgumentException.class,
                () -> Tensor.checkedElementCount(new long[] {Long.MAX_VALUE, Long.MAX_VALUE, 2}));
        assertThrows(InvalidArgumentException.class,
                () -> Tensor.checkedElementCount(new long[] {Tensor.MAX_ELEMENTS + 1}));
        assertEquals((int) Tensor.MAX_ELEMENTS, Tensor.checkedElementCount(new long[] {Tensor.MAX_ELEMENTS}));
        InvalidArgumentException negative = assertThrows(InvalidArgumentException.class,
                () -> Tensor.checkedElementCount(new long[] {2, -3}));
        assertTrue(negative.getMessage().contains("2x-3"), negative.getMessage());
    }

    @Test
    void typedAccessorOfTheWrongKindIsRefused() {
        Tensor t = Tensor.ofFloats(new float[] {1}, 1);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, t::ints);
        assertTrue(e.getMessage().contains("float32"), e.getMessage());
        assertThrows(InvalidArgumentException.class, t::strings);
        Tensor s = Tensor.ofStrings(new String[] {"x"}, 1);
        assertThrows(InvalidArgumentException.class, () -> s.getDouble(0));
        assertThrows(InvalidArgumentException.class, () -> s.getLong(0));
    }

    @Test
    void elementsReadAsNumbersForEveryType() {
        assertEquals(255, Tensor.of(ElementType.UINT8, new long[] {1}, new byte[] {-1}).getLong(0));
        assertEquals(-1, Tensor.of(ElementType.INT8, new long[] {1}, new byte[] {-1}).getLong(0));
        assertEquals(65535, Tensor.of(ElementType.UINT16, new long[] {1}, new short[] {-1}).getLong(0));
        assertEquals(-1, Tensor.of(ElementType.INT16, new long[] {1}, new short[] {-1}).getDouble(0));
        assertEquals(4294967295L, Tensor.of(ElementType.UINT32, new long[] {1}, new int[] {-1}).getLong(0));
        assertEquals(4294967295.0, Tensor.of(ElementType.UINT32, new long[] {1}, new int[] {-1}).getDouble(0));
        assertEquals(-1, Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {-1}).getLong(0));
        assertEquals(1, Tensor.ofBooleans(new boolean[] {true}, 1).getLong(0));
        assertEquals(-2, Tensor.ofFloats(new float[] {-2.9f}, 1).getLong(0), "floats truncate towards zero");
        assertEquals(1.5, Tensor.of(ElementType.FLOAT16, new long[] {1},
                new short[] {HalfFloats.floatToFloat16(1.5f)}).getDouble(0));
        assertEquals(-3, Tensor.of(ElementType.BFLOAT16, new long[] {1},
                new short[] {HalfFloats.floatToBfloat16(-3f)}).getLong(0));
    }

    @Test
    void uint64ReadsAsTheNearestDouble() {
        long[] values = {-1L, Long.MIN_VALUE, Long.MIN_VALUE + 0x401, Long.MIN_VALUE + 0xc00, 0xFFFF_FFFF_FFFF_FBFFL,
                Long.MIN_VALUE + 0x400, 0x7FFF_FFFF_FFFF_FFFFL, 12345};
        Tensor t = Tensor.of(ElementType.UINT64, new long[] {values.length}, values);
        for (int i = 0; i < values.length; i++) {
            double exact = new BigDecimal(Long.toUnsignedString(values[i])).doubleValue();
            assertEquals(exact, t.getDouble(i), Long.toUnsignedString(values[i]));
        }
    }

    @Test
    void reshapeSharesTheArray() {
        Tensor t = Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor r = t.reshape(3, 2);
        assertArrayEquals(new long[] {3, 2}, r.shape());
        assertSame(t.data(), r.data());
        assertThrows(InvalidArgumentException.class, () -> t.reshape(), "six elements are not a scalar");
        assertEquals(3, Tensor.ofFloats(new float[] {1}).reshape(1, 1, 1).rank());
        assertEquals(0, Tensor.ofFloats(new float[] {1}, 1, 1).reshape().rank());
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> t.reshape(4));
        assertTrue(e.getMessage().contains("2x3") && e.getMessage().contains("4"), e.getMessage());
    }

    @Test
    void toStringShowsTheFirstEightElements() {
        assertEquals("Tensor[float32 2x2: 1.0, 2.0, 3.0, 4.0]", Tensor.ofFloats(new float[] {1, 2, 3, 4}, 2, 2)
                .toString());
        assertEquals("Tensor[int64 10: 0, 1, 2, 3, 4, 5, 6, 7, ...]",
                Tensor.ofLongs(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10).toString());
        assertEquals("Tensor[uint64 1: 18446744073709551615]",
                Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {-1}).toString());
        assertEquals("Tensor[string scalar: hi]", Tensor.ofStrings(new String[] {"hi"}).toString());
        assertEquals("Tensor[bool 1: true]", Tensor.ofBooleans(new boolean[] {true}, 1).toString());
    }

    @Test
    void matrixFactoriesCopyTheRows() {
        float[][] features = {{1, 2, 3}, {4, 5, 6}};
        Tensor f = Tensor.of(features);
        assertEquals(ElementType.FLOAT, f.type());
        assertArrayEquals(new long[] {2, 3}, f.shape());
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, f.floats());
        features[1][2] = 60;
        assertEquals(6, f.floats()[5], "the tensor has its own copy");
        long[][] tokens = {{101, 7592, 2088, 102}};
        Tensor t = Tensor.of(tokens);
        assertEquals(ElementType.INT64, t.type());
        assertArrayEquals(new long[] {1, 4}, t.shape());
        assertArrayEquals(new long[] {101, 7592, 2088, 102}, t.longs());
        assertArrayEquals(new long[] {0, 0}, Tensor.of(new long[0][]).shape());
        assertArrayEquals(new long[] {3, 0}, Tensor.of(new float[3][0]).shape());
    }

    @Test
    void matrixFactoriesRefuseRaggedAndNullRows() {
        InvalidArgumentException ragged = assertThrows(InvalidArgumentException.class,
                () -> Tensor.of(new float[][] {{1, 2}, {3, 4}, {5}}));
        assertTrue(ragged.getMessage().contains("row 2 has 1 elements, row 0 has 2"), ragged.getMessage());
        InvalidArgumentException nullRow = assertThrows(InvalidArgumentException.class,
                () -> Tensor.of(new long[][] {{1}, null}));
        assertTrue(nullRow.getMessage().contains("row 1 is null"), nullRow.getMessage());
        assertThrows(NullPointerException.class, () -> Tensor.of((float[][]) null));
    }

    @Test
    void toFloatArrayReadsEveryNumericTypeIntoANewArray() {
        float[] data = {1.5f, -2};
        Tensor f = Tensor.ofFloats(data, 2);
        float[] copy = f.toFloatArray();
        assertArrayEquals(data, copy);
        copy[0] = 9;
        assertEquals(1.5f, f.floats()[0], "the copy belongs to the caller");
        assertArrayEquals(new float[] {3, -4}, Tensor.ofLongs(new long[] {3, -4}, 2).toFloatArray());
        assertArrayEquals(new float[] {0.25f}, Tensor.ofDoubles(new double[] {0.25}, 1).toFloatArray());
        assertArrayEquals(new float[] {255}, Tensor.of(ElementType.UINT8, new long[] {1}, new byte[] {-1})
                .toFloatArray());
        assertArrayEquals(new float[] {1, 0}, Tensor.ofBooleans(new boolean[] {true, false}, 2).toFloatArray());
        short half = HalfFloats.floatToFloat16(0.5f);
        assertArrayEquals(new float[] {0.5f}, Tensor.of(ElementType.FLOAT16, new long[] {1}, new short[] {half})
                .toFloatArray());
        assertArrayEquals(new float[0], Tensor.zeros(ElementType.INT32, 0, 4).toFloatArray());
        assertThrows(InvalidArgumentException.class, () -> Tensor.ofStrings(new String[] {"a"}, 1).toFloatArray());
    }

    @Test
    void aReshapeIsAViewOfItsTensorAndACopyIsNot() {
        Tensor heap = Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        assertTrue(heap.reshape(3, 2).isViewOf(heap));
        assertTrue(heap.isViewOf(heap.reshape(6)));
        assertTrue(!heap.isViewOf(Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3)));
        assertTrue(!heap.isViewOf(null));
        int[] released = new int[1];
        java.nio.ByteBuffer block = java.nio.ByteBuffer.allocateDirect(24);
        Tensor device = Tensor.ofBuffer(ElementType.FLOAT, new long[] {2, 3}, block, () -> released[0]++);
        Tensor view = device.reshape(6);
        assertTrue(view.isViewOf(device));
        // the same memory wrapped again has a release of its own: closing both would give it back twice
        assertTrue(!Tensor.ofBuffer(ElementType.FLOAT, new long[] {6}, block, () -> { }).isViewOf(device));
        assertTrue(!device.isViewOf(heap) && !heap.isViewOf(device));
        view.close();
        device.close();
        assertEquals(1, released[0], "a view and its tensor give their block back once");
    }

    @Test
    void copyToOverwritesAHeapTensorOfTheSameTypeAndShapeFromTheHeapOrFromABuffer() {
        Tensor target = Tensor.zeros(ElementType.FLOAT, 2, 2);
        Tensor.ofFloats(new float[] {1, 2, 3, 4}, 2, 2).copyTo(target);
        assertArrayEquals(new float[] {1, 2, 3, 4}, target.floats());
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        direct.asFloatBuffer().put(new float[] {5, 6, 7, 8});
        Tensor offHeap = Tensor.ofBuffer(ElementType.FLOAT, new long[] {2, 2}, direct, () -> { });
        offHeap.copyTo(target);
        assertArrayEquals(new float[] {5, 6, 7, 8}, target.floats());
        target.copyTo(target);
        assertArrayEquals(new float[] {5, 6, 7, 8}, target.floats(), "into itself");
        InvalidArgumentException shape = assertThrows(InvalidArgumentException.class,
                () -> Tensor.zeros(ElementType.FLOAT, 4).copyTo(target));
        assertTrue(shape.getMessage().contains("float32 4 tensor cannot be copied into a float32 2x2"),
                shape.getMessage());
        assertThrows(InvalidArgumentException.class, () -> Tensor.zeros(ElementType.DOUBLE, 2, 2).copyTo(target));
        assertThrows(InvalidArgumentException.class, () -> target.copyTo(offHeap));
    }
}
