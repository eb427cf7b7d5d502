package io.ortex.onnx;

import static io.ortex.onnx.ModelReaderTest.fails;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class TensorCodecTest {
    static Stream<ElementType> numericTypes() {
        return Arrays.stream(ElementType.values()).filter(t -> t.isSupported() && t != ElementType.STRING);
    }

    static Stream<ElementType> unsupportedTypes() {
        return Arrays.stream(ElementType.values()).filter(t -> !t.isSupported());
    }

    /** A tensor of a type whose elements are 1, 2, 3, ... converted to that type (true/false for bool). */
    static Tensor sample(ElementType type, long... shape) {
        int n = Tensor.checkedElementCount(shape);
        Object data = Array.newInstance(type.storage().getComponentType(), n);
        for (int i = 0; i < n; i++) {
            int v = i + 1;
            switch (type) {
                case FLOAT: Array.setFloat(data, i, v + 0.25f); break;
                case DOUBLE: Array.setDouble(data, i, v + 0.125); break;
                case FLOAT16: Array.setShort(data, i, HalfFloats.floatToFloat16(v)); break;
                case BFLOAT16: Array.setShort(data, i, HalfFloats.floatToBfloat16(v)); break;
                case BOOL: Array.setBoolean(data, i, v % 2 == 0); break;
                case UINT8: case INT8: Array.setByte(data, i, (byte) (v * 50)); break;
                case UINT16: case INT16: Array.setShort(data, i, (short) (v * 20000)); break;
                case UINT32: case INT32: Array.setInt(data, i, v * 1_500_000_000); break;
                case INT4: Array.setByte(data, i, (byte) (v * 3 % 16 - 8)); break;
                case UINT4: case FLOAT4E2M1: Array.setByte(data, i, (byte) (v * 5 % 16)); break;
                case INT2: Array.setByte(data, i, (byte) (v % 4 - 2)); break;
                case UINT2: Array.setByte(data, i, (byte) (v * 3 % 4)); break;
                case FLOAT8E4M3FN: case FLOAT8E4M3FNUZ: case FLOAT8E5M2: case FLOAT8E5M2FNUZ: case FLOAT8E8M0:
                    Array.setByte(data, i, (byte) (v * 37));
                    break;
                default: Array.setLong(data, i, v * 7_000_000_000_000_000_000L); break;
            }
        }
        return Tensor.of(type, shape, data);
    }

    static void assertSameTensor(Tensor expected, Tensor actual) {
        assertEquals(expected.type(), actual.type());
        assertArrayEquals(expected.shape(), actual.shape());
        assertNull(TensorComparison.difference(expected, actual, 0, 0), () -> expected + " vs " + actual);
        if (expected.data() instanceof byte[] b) {
            assertArrayEquals(b, actual.bytes(), () -> expected + " vs " + actual);
        }
    }

    @Test
    void elementTypeNumbersMatchTheSchema() {
        for (ElementType t : ElementType.values()) {
            assertEquals(t.name(), TensorProto.DataType.forNumber(t.code()).name());
        }
    }

    @ParameterizedTest
    @MethodSource("numericTypes")
    void rawDataRoundTripsEveryTypeAndShape(ElementType type) {
        for (long[] shape : new long[][] {{}, {0}, {3, 0, 2}, {5}, {2, 3}}) {
            Tensor t = sample(type, shape);
            TensorProto p = TensorCodec.toProto(t, "t");
            assertEquals(type.code(), p.getDataType());
            assertEquals(type.bitWidth() < 8 ? ((long) t.size() * type.bitWidth() + 7) / 8
                    : (long) t.size() * type.byteSize(), p.getRawData().size());
            assertSameTensor(t, TensorCodec.fromProto(p));
        }
    }

    @Test
    void rawDataIsLittleEndian() {
        TensorProto p = TensorCodec.toProto(Tensor.ofInts(new int[] {0x01020304}, 1), "i");
        assertArrayEquals(new byte[] {4, 3, 2, 1}, p.getRawData().toByteArray());
        ByteBuffer b = TensorCodec.toBytes(Tensor.ofBooleans(new boolean[] {true, false, true}, 3));
        assertEquals(0, b.position());
        assertEquals(3, b.limit());
        assertEquals(1, b.get(2));
    }

    /** Puts a tensor's elements into the typed field ONNX assigns to its type. */
    static TensorProto typed(Tensor t) {
        TensorProto.Builder b = TensorProto.newBuilder().setName("t").setDataType(t.type().code())
                .addAllDims(TestModels.boxed(t.shape()));
        if (t.type().bitWidth() < 8) {
            // sub-byte types: each int32_data entry holds one byte packed as in raw_data
            for (byte packed : TensorCodec.toProto(t, "t").getRawData().toByteArray()) {
                b.addInt32Data(Byte.toUnsignedInt(packed));
            }
            return b.build();
        }
        for (int i = 0; i < t.size(); i++) {
            switch (t.type()) {
                case FLOAT: b.addFloatData(t.floats()[i]); break;
                case DOUBLE: b.addDoubleData(t.doubles()[i]); break;
                case INT64: b.addInt64Data(t.longs()[i]); break;
                case UINT64: b.addUint64Data(t.longs()[i]); break;
                case UINT32: b.addUint64Data(Integer.toUnsignedLong(t.ints()[i])); break;
                case FLOAT16: case BFLOAT16: case UINT16: b.addInt32Data(Short.toUnsignedInt(t.shorts()[i])); break;
                case UINT8: case FLOAT8E4M3FN: case FLOAT8E4M3FNUZ: case FLOAT8E5M2: case FLOAT8E5M2FNUZ:
                case FLOAT8E8M0:
                    b.addInt32Data(Byte.toUnsignedInt(t.bytes()[i]));
                    break;
                default: b.addInt32Data((int) t.getLong(i)); break;
            }
        }
        return b.build();
    }

    @ParameterizedTest
    @MethodSource("numericTypes")
    void typedFieldsDecodeEveryType(ElementType type) {
        for (long[] shape : new long[][] {{}, {0}, {4}, {2, 2}}) {
            Tensor t = sample(type, shape);
            assertSameTensor(t, TensorCodec.fromProto(typed(t)));
        }
    }

    @Test
    void typedFieldsKeepUnsignedAndSpecialValues() {
        TensorProto u32 = TensorProto.newBuilder().setDataType(ElementType.UINT32.code()).addDims(1)
                .addUint64Data(0xFFFF_FFF0L).build();
        assertEquals(0xFFFF_FFF0L, TensorCodec.fromProto(u32).getLong(0));
        TensorProto half = TensorProto.newBuilder().setDataType(ElementType.FLOAT16.code()).addDims(2)
                .addInt32Data(0x7c00).addInt32Data(0xfe00).build();
        Tensor h = TensorCodec.fromProto(half);
        assertEquals(Double.POSITIVE_INFINITY, h.getDouble(0));
        assertTrue(Double.isNaN(h.getDouble(1)));
    }

    @Test
    void stringsUseStringDataAndRoundTrip() {
        Tensor s = Tensor.ofStrings(new String[] {"a", "", "héllo", "日本"}, 2, 2);
        TensorProto p = TensorCodec.toProto(s, "s");
        assertEquals(4, p.getStringDataCount());
        assertTrue(!p.hasRawData());
        assertArrayEquals(s.strings(), TensorCodec.fromProto(p).strings());
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(p.toBuilder()
                .setRawData(ByteString.copyFrom(new byte[4])).build()), "'s'", "raw_data");
        fails(NotImplementedException.class, () -> TensorCodec.toBytes(s), "string");
    }

    @ParameterizedTest
    @MethodSource("unsupportedTypes")
    void unsupportedTypesFailClearly(ElementType type) {
        TensorProto p = TensorProto.newBuilder().setName("odd").setDataType(type.code()).addDims(2)
                .setRawData(ByteString.copyFrom(new byte[32])).build();
        fails(NotImplementedException.class, () -> TensorCodec.fromProto(p), "'odd'", type.displayName());
        fails(NotImplementedException.class, () -> TensorCodec.fromBytes("odd", type, new long[] {2}, 2,
                ByteBuffer.allocate(32)), "'odd'", type.displayName());
    }

    @Test
    void unknownOrMissingDataTypeIsNamed() {
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(TensorProto.newBuilder().setName("x")
                .setDataType(99).build()), "'x'", "99");
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(TensorProto.newBuilder().setName("x")
                .build()), "'x'", "no data_type");
    }

    @Test
    void badShapesAndSizesAreNamed() {
        TensorProto.Builder b = TensorProto.newBuilder().setName("x").setDataType(ElementType.FLOAT.code());
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(b.clone().addDims(-2).build()), "'x'",
                "-2");
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(b.clone().addDims(1L << 40)
                .addDims(1L << 40).setRawData(ByteString.EMPTY).build()), "'x'", "too large");
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(b.clone().addDims(2)
                .setRawData(ByteString.copyFrom(new byte[7])).build()), "'x'", "8 bytes", "found 7");
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(b.clone().addDims(3).addFloatData(1)
                .build()), "'x'", "float_data", "found 1");
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(b.clone().addDims(1)
                .addInt32Data(1).build()), "'x'", "float_data");
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(b.clone().addDims(1)
                .setDataLocation(TensorProto.DataLocation.EXTERNAL).build()), "'x'", "external");
    }

    @Test
    void subByteTypesPackLowBitsFirstWithOddCounts() {
        Tensor i4 = Tensor.of(ElementType.INT4, new long[] {5}, new byte[] {-8, 7, -1, 0, 3});
        TensorProto p = TensorCodec.toProto(i4, "i4");
        assertArrayEquals(new byte[] {(byte) 0x78, (byte) 0x0f, (byte) 0x03}, p.getRawData().toByteArray());
        assertSameTensor(i4, TensorCodec.fromProto(p));
        Tensor u4 = Tensor.of(ElementType.UINT4, new long[] {3}, new byte[] {15, 1, 9});
        assertArrayEquals(new byte[] {(byte) 0x1f, (byte) 0x09}, TensorCodec.toProto(u4, "u").getRawData()
                .toByteArray());
        Tensor f4 = Tensor.of(ElementType.FLOAT4E2M1, new long[] {1}, new byte[] {0xf});
        assertArrayEquals(new byte[] {0x0f}, TensorCodec.toProto(f4, "f").getRawData().toByteArray());
        Tensor i2 = Tensor.of(ElementType.INT2, new long[] {7}, new byte[] {-2, -1, 0, 1, 1, -2, -1});
        TensorProto p2 = TensorCodec.toProto(i2, "i2");
        // 10 11 00 01 -> 0b01001110; then 01 10 11 (pad 00) -> 0b00111001
        assertArrayEquals(new byte[] {(byte) 0x4e, (byte) 0x39}, p2.getRawData().toByteArray());
        assertSameTensor(i2, TensorCodec.fromProto(p2));
        Tensor u2 = Tensor.of(ElementType.UINT2, new long[] {5}, new byte[] {3, 2, 1, 0, 3});
        TensorProto pu2 = TensorCodec.toProto(u2, "u2");
        assertArrayEquals(new byte[] {(byte) 0x1b, 0x03}, pu2.getRawData().toByteArray());
        assertSameTensor(u2, TensorCodec.fromProto(pu2));
        // the high nibble of int4 0x8.. unpacks sign-extended
        Tensor decoded = TensorCodec.fromProto(TensorProto.newBuilder().setDataType(ElementType.INT4.code())
                .addDims(2).setRawData(ByteString.copyFrom(new byte[] {(byte) 0x9f})).build());
        assertArrayEquals(new byte[] {-1, -7}, decoded.bytes());
        assertEquals(-7, decoded.getLong(1));
        assertEquals(-7.0, decoded.getDouble(1));
    }

    @Test
    void subByteTypedFieldsHoldPackedBytes() {
        TensorProto p = TensorProto.newBuilder().setName("q").setDataType(ElementType.UINT4.code()).addDims(3)
                .addInt32Data(0x21).addInt32Data(0x03).build();
        assertArrayEquals(new byte[] {1, 2, 3}, TensorCodec.fromProto(p).bytes());
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(p.toBuilder().addInt32Data(0).build()),
                "'q'", "2 packed bytes", "found 3");
        fails(InvalidModelException.class, () -> TensorCodec.fromProto(p.toBuilder().setRawData(
                ByteString.copyFrom(new byte[3])).build()), "'q'", "2 bytes", "found 3");
        assertEquals(2, TensorCodec.typedFieldEntries(ElementType.UINT4, 3));
        assertEquals(2, TensorCodec.byteCount(ElementType.INT2, 5));
        assertEquals(5, TensorCodec.typedFieldEntries(ElementType.FLOAT8E5M2, 5));
        assertEquals(20, TensorCodec.byteCount(ElementType.FLOAT, 5));
    }

    @Test
    void float8TypedFieldsHoldOnePatternPerEntry() {
        TensorProto p = TensorProto.newBuilder().setDataType(ElementType.FLOAT8E4M3FN.code()).addDims(3)
                .addInt32Data(0x38).addInt32Data(0xb8).addInt32Data(0x7f).build();
        Tensor t = TensorCodec.fromProto(p);
        assertEquals(1.0, t.getDouble(0));
        assertEquals(-1.0, t.getDouble(1));
        assertTrue(Double.isNaN(t.getDouble(2)));
        assertArrayEquals(new byte[] {0x38, (byte) 0xb8, 0x7f}, TensorCodec.toProto(t, "t").getRawData()
                .toByteArray());
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"FLOAT", "INT64", "FLOAT16", "BOOL", "UINT8", "INT4", "UINT2",
        "FLOAT8E5M2"})
    void decodesFromAnyBufferPosition(ElementType type) {
        Tensor t = sample(type, 3);
        ByteBuffer bytes = TensorCodec.toBytes(t);
        ByteBuffer padded = ByteBuffer.allocate(bytes.remaining() + 5);
        padded.position(5);
        padded.put(bytes).position(5);
        assertSameTensor(t, TensorCodec.fromBytes("t", type, new long[] {3}, 3, padded));
    }
}
