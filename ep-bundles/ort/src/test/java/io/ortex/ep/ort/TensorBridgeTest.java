package io.ortex.ep.ort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnxruntime.OnnxTensor;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every element type both sides carry goes into ONNX Runtime and comes back unchanged. */
class TensorBridgeTest {
    private static Tensor sample(ElementType type) {
        long[] shape = {2, 3};
        Tensor zeros = Tensor.zeros(type, shape);
        Object data = zeros.data();
        for (int i = 0; i < 6; i++) {
            switch (type) {
                case FLOAT: ((float[]) data)[i] = i - 2.5f; break;
                case DOUBLE: ((double[]) data)[i] = i * 1e-3 - 1; break;
                case INT64: ((long[]) data)[i] = (long) i << 40; break;
                case INT32: ((int[]) data)[i] = -i * 100000; break;
                case INT16: case FLOAT16: case BFLOAT16: ((short[]) data)[i] = (short) (0x3c00 + i); break;
                case INT8: case UINT8: ((byte[]) data)[i] = (byte) (i * 50 - 100); break;
                case BOOL: ((boolean[]) data)[i] = i % 2 == 0; break;
                case STRING: ((String[]) data)[i] = "s" + i + (i == 3 ? "\n\u00e9" : ""); break;
                default: throw new AssertionError(type);
            }
        }
        return zeros;
    }

    @Test
    void roundTripsEveryCarriedType() throws Exception {
        for (ElementType type : TensorBridge.SUPPORTED) {
            Tensor t = sample(type);
            ByteBuffer b = TensorBridge.buffer(null, TensorBridge.byteSize(t));
            try (OnnxTensor ort = TensorBridge.toOrt(OrtRuntime.environment(), t, b)) {
                Tensor back = TensorBridge.fromOrt(ort, "x");
                assertEquals(type, back.type());
                assertArrayEquals(t.shape(), back.shape());
                assertEquals(Array.getLength(t.data()), Array.getLength(back.data()));
                for (int i = 0; i < 6; i++) {
                    assertEquals(Array.get(t.data(), i), Array.get(back.data(), i), type + " element " + i);
                }
            }
        }
    }

    @Test
    void buffersAreReusedWhenLargeEnough() {
        ByteBuffer small = TensorBridge.buffer(null, 16);
        assertEquals(small, TensorBridge.buffer(small, 12));
        ByteBuffer grown = TensorBridge.buffer(small, 64);
        assertEquals(64, grown.capacity());
        assertEquals(List.of(true, true), List.of(small.isDirect(), grown.isDirect()));
    }
}
