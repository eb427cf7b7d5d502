package io.ortex.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx;
import org.junit.jupiter.api.Test;

/** Initializers of the sub-byte and 8-bit float types load with their packed sizes, and compare exactly. */
class SubByteInitializerTest {
    private static Onnx.ModelProto model(Onnx.TensorProto init) {
        Onnx.GraphProto g = Onnx.GraphProto.newBuilder().setName("g").addInitializer(init)
                .addNode(Onnx.NodeProto.newBuilder().setOpType("Identity").addInput(init.getName()).addOutput("y"))
                .addOutput(Onnx.ValueInfoProto.newBuilder().setName("y")).build();
        return Onnx.ModelProto.newBuilder().setIrVersion(10).setGraph(g)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setVersion(21)).build();
    }

    @Test
    void int4InitializerPackedTwoPerByteLoads() {
        // five int4 values 1, -2, 3, -4, 7 packed low nibble first: 0xE1, 0xC3, 0x07
        Onnx.TensorProto init = Onnx.TensorProto.newBuilder().setName("w").setDataType(ElementType.INT4.code())
                .addDims(5).setRawData(ByteString.copyFrom(new byte[] {(byte) 0xE1, (byte) 0xC3, 0x07})).build();
        OnnxModel m = ModelReader.read(model(init).toByteArray(), null);
        Tensor w = m.graph().initializers().get(0).initializer().orElseThrow();
        assertArrayEquals(new byte[] {1, -2, 3, -4, 7}, w.bytes());
    }

    @Test
    void int4InitializerOneByteShortIsRefusedWithItsPackedSize() {
        Onnx.TensorProto init = Onnx.TensorProto.newBuilder().setName("w").setDataType(ElementType.INT4.code())
                .addDims(5).setRawData(ByteString.copyFrom(new byte[] {1, 2})).build();
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> ModelReader.read(model(init).toByteArray(), null));
        assertTrue(e.getMessage().contains("'w'") && e.getMessage().contains("3 bytes"), e.getMessage());
    }

    @Test
    void float8OutputsCompareByValueNotByTruncatedInteger() {
        // 0x38 and 0x39 are 1.0 and 1.125 in float8e4m3fn; as integers both would truncate to 1
        Tensor expected = Tensor.of(ElementType.FLOAT8E4M3FN, new long[] {1}, new byte[] {0x38});
        Tensor actual = Tensor.of(ElementType.FLOAT8E4M3FN, new long[] {1}, new byte[] {0x39});
        assertEquals(1.0, expected.getDouble(0));
        assertTrue(TensorComparison.difference(expected, actual, 1e-3, 1e-5) != null);
        assertNull(TensorComparison.difference(expected, expected, 1e-3, 1e-5));
    }
}
