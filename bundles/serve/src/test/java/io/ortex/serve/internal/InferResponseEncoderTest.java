package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class InferResponseEncoderTest {
    private final InferResponseEncoder encoder = new InferResponseEncoder();

    @Test
    void writesJsonOutputs() {
        InferResponseEncoder.Encoded e = encoder.encode("m", "3", "id7", List.of(
                new InferResponseEncoder.Output("y", Tensor.ofFloats(new float[] {1.5f, -2}, 1, 2), false),
                new InferResponseEncoder.Output("u", Tensor.of(ElementType.UINT64, new long[] {2},
                        new long[] {-1L, 3}), false),
                new InferResponseEncoder.Output("b", Tensor.of(ElementType.UINT8, new long[] {1},
                        new byte[] {(byte) 200}), false),
                new InferResponseEncoder.Output("s", Tensor.ofStrings(new String[] {"a\"b"}, 1), false)));
        assertEquals(-1, e.headerLength());
        assertEquals("{\"model_name\":\"m\",\"model_version\":\"3\",\"id\":\"id7\",\"outputs\":["
                + "{\"name\":\"y\",\"datatype\":\"FP32\",\"shape\":[1,2],\"data\":[1.5,-2.0]},"
                + "{\"name\":\"u\",\"datatype\":\"UINT64\",\"shape\":[2],\"data\":[18446744073709551615,3]},"
                + "{\"name\":\"b\",\"datatype\":\"UINT8\",\"shape\":[1],\"data\":[200]},"
                + "{\"name\":\"s\",\"datatype\":\"BYTES\",\"shape\":[1],\"data\":[\"a\\\"b\"]}]}",
                new String(e.body(), StandardCharsets.UTF_8));
    }

    @Test
    void binaryOutputsRoundTripThroughTheDecoder() {
        Tensor y = Tensor.ofFloats(new float[] {1, 2, 3}, 3);
        Tensor s = Tensor.ofStrings(new String[] {"é", ""}, 2);
        InferResponseEncoder.Encoded e = encoder.encode("m", "1", null, List.of(
                new InferResponseEncoder.Output("y", y, true), new InferResponseEncoder.Output("s", s, true)));
        String header = new String(e.body(), 0, e.headerLength(), StandardCharsets.UTF_8);
        assertEquals("{\"model_name\":\"m\",\"model_version\":\"1\",\"outputs\":["
                + "{\"name\":\"y\",\"datatype\":\"FP32\",\"shape\":[3],\"parameters\":{\"binary_data_size\":12}},"
                + "{\"name\":\"s\",\"datatype\":\"BYTES\",\"shape\":[2],\"parameters\":{\"binary_data_size\":10}}]}",
                header);
        // the same bytes are a valid request body: decode them as inputs
        String asRequest = header.replace("\"outputs\"", "\"inputs\"");
        byte[] body = new byte[asRequest.length() + e.body().length - e.headerLength()];
        System.arraycopy(asRequest.getBytes(StandardCharsets.UTF_8), 0, body, 0, asRequest.length());
        System.arraycopy(e.body(), e.headerLength(), body, asRequest.length(), e.body().length - e.headerLength());
        InferRequest r = new InferRequestDecoder(100).decode(body, Integer.toString(asRequest.length()));
        assertArrayEquals(y.floats(), r.inputs().get(0).tensor().floats());
        assertArrayEquals(s.strings(), r.inputs().get(1).tensor().strings());
    }

    @Test
    void refusesTypesTheProtocolCannotCarry() {
        Tensor f8 = Tensor.of(ElementType.FLOAT8E4M3FN, new long[] {1}, new byte[] {0});
        ProtocolException e = assertThrows(ProtocolException.class, () -> encoder.encode("m", "1", null,
                List.of(new InferResponseEncoder.Output("z", f8, false))));
        assertEquals(500, e.status());
        assertEquals("output 'z' is of type float8e4m3fn, which the protocol has no datatype for", e.getMessage());
    }

    @Test
    void everyDatatypeMapsBothWays() {
        for (Datatype d : Datatype.values()) {
            assertEquals(d, Datatype.of(d.elementType()), d.name());
        }
        assertEquals(14, Arrays.stream(Datatype.values()).count());
    }
}
