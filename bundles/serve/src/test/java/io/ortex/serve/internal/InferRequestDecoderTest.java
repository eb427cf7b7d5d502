package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.Tensor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InferRequestDecoderTest {
    private final InferRequestDecoder decoder = new InferRequestDecoder(1_000_000);

    private InferRequest decode(String json) {
        return decoder.decode(json.getBytes(StandardCharsets.UTF_8), null);
    }

    private ProtocolException refused(String json) {
        return assertThrows(ProtocolException.class, () -> decode(json));
    }

    private static String input(String name, String datatype, String shape, String data) {
        return "{\"inputs\":[{\"name\":\"" + name + "\",\"datatype\":\"" + datatype + "\",\"shape\":" + shape
                + ",\"data\":" + data + "}]}";
    }

    @Test
    void decodesFlatAndNestedFloatData() {
        InferRequest flat = decode(input("x", "FP32", "[2,2]", "[1,2.5,-3,4e2]"));
        InferRequest nested = decode(input("x", "FP32", "[2,2]", "[[1,2.5],[-3,4e2]]"));
        for (InferRequest r : new InferRequest[] {flat, nested}) {
            Tensor t = r.inputs().get(0).tensor();
            assertEquals(ElementType.FLOAT, t.type());
            assertArrayEquals(new long[] {2, 2}, t.shape());
            assertArrayEquals(new float[] {1, 2.5f, -3, 400}, t.floats());
        }
    }

    @Test
    void decodesEveryDatatype() {
        assertArrayEquals(new long[] {Long.MIN_VALUE, 7},
                decode(input("x", "INT64", "[2]", "[-9223372036854775808,7]")).inputs().get(0).tensor().longs());
        assertArrayEquals(new long[] {-1L, 5},
                decode(input("x", "UINT64", "[2]", "[18446744073709551615,5]")).inputs().get(0).tensor().longs());
        assertArrayEquals(new int[] {-2, 3}, decode(input("x", "INT32", "[2]", "[-2,3]")).inputs().get(0)
                .tensor().ints());
        assertArrayEquals(new int[] {-1}, decode(input("x", "UINT32", "[1]", "[4294967295]")).inputs().get(0)
                .tensor().ints());
        assertArrayEquals(new short[] {-32768}, decode(input("x", "INT16", "[1]", "[-32768]")).inputs().get(0)
                .tensor().shorts());
        assertArrayEquals(new short[] {-1}, decode(input("x", "UINT16", "[1]", "[65535]")).inputs().get(0)
                .tensor().shorts());
        assertArrayEquals(new byte[] {-128, 127}, decode(input("x", "INT8", "[2]", "[-128,127]")).inputs().get(0)
                .tensor().bytes());
        assertArrayEquals(new byte[] {(byte) 255}, decode(input("x", "UINT8", "[1]", "[255]")).inputs().get(0)
                .tensor().bytes());
        assertArrayEquals(new double[] {0.1}, decode(input("x", "FP64", "[1]", "[0.1]")).inputs().get(0)
                .tensor().doubles());
        assertArrayEquals(new boolean[] {true, false}, decode(input("x", "BOOL", "[2]", "[true,false]")).inputs()
                .get(0).tensor().booleans());
        assertArrayEquals(new String[] {"héllo", ""}, decode(input("x", "BYTES", "[2]", "[\"héllo\",\"\"]"))
                .inputs().get(0).tensor().strings());
        assertEquals(1.5f, HalfFloats.float16ToFloat(decode(input("x", "FP16", "[1]", "[1.5]")).inputs().get(0)
                .tensor().shorts()[0]));
        assertEquals(ElementType.BFLOAT16, decode(input("x", "BF16", "[1]", "[1.5]")).inputs().get(0).tensor().type());
        Tensor scalar = decode(input("x", "FP32", "[]", "[3]")).inputs().get(0).tensor();
        assertEquals(0, scalar.rank());
    }

    @Test
    void readsIdOutputsAndParameters() {
        InferRequest r = decode("{\"id\":\"r1\",\"parameters\":{\"binary_data_output\":true,\"other\":[1]},"
                + "\"inputs\":[{\"name\":\"x\",\"datatype\":\"FP32\",\"shape\":[1],\"data\":[1]}],"
                + "\"outputs\":[{\"name\":\"y\",\"parameters\":{\"binary_data\":false}},{\"name\":\"z\"}]}");
        assertEquals("r1", r.id());
        assertTrue(r.binaryDataOutput());
        assertEquals("y", r.outputs().get(0).name());
        assertFalse(r.outputs().get(0).binaryData());
        assertNull(r.outputs().get(1).binaryData());
    }

    @Test
    void refusesMalformedJson() {
        assertTrue(refused("{\"inputs\":[").getMessage().startsWith("the request is not valid JSON"));
        assertTrue(refused("").getMessage().contains("not valid JSON") || refused("").getMessage().contains("object"));
        assertTrue(refused("[1,2]").getMessage().contains("not a JSON object"));
        assertTrue(refused(input("x", "FP32", "[1]", "[1]") + "{}").getMessage().contains("after its JSON object"));
        assertTrue(refused("{\"inputs\":[],\"inputs\":[]}").getMessage().contains("not valid JSON"));
        assertEquals("the request has no inputs", refused("{\"inputs\":[]}").getMessage());
        assertEquals(400, refused("{\"inputs\":[{\"datatype\":\"FP32\",\"shape\":[1],\"data\":[1]}]}").status());
    }

    @Test
    void refusesDeepNesting() {
        String deep = "[".repeat(5000) + "1" + "]".repeat(5000);
        ProtocolException e = refused(input("x", "FP32", "[1]", deep));
        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains("not valid JSON"), e.getMessage());
    }

    @Test
    void refusesWrongDatatypes() {
        ProtocolException e = refused(input("x", "FLOAT32", "[1]", "[1]"));
        assertTrue(e.getMessage().startsWith("input 'x': unknown datatype 'FLOAT32'"), e.getMessage());
        e = refused(input("ids", "INT32", "[2]", "[1,1.5]"));
        assertEquals("input 'ids': element 1 (1.5) is not a INT32 value", e.getMessage());
        e = refused(input("ids", "UINT8", "[1]", "[256]"));
        assertEquals("input 'ids': element 0 (256) is out of the range of UINT8 [0, 255]", e.getMessage());
        e = refused(input("ids", "INT64", "[1]", "[9223372036854775808]"));
        assertTrue(e.getMessage().contains("out of the range of INT64"), e.getMessage());
        e = refused(input("s", "BYTES", "[1]", "[1]"));
        assertEquals("input 's': element 0 (1) is not a BYTES value", e.getMessage());
        e = refused(input("b", "BOOL", "[1]", "[1]"));
        assertEquals("input 'b': element 0 (1) is not a BOOL value", e.getMessage());
        e = refused(input("f", "FP32", "[1]", "[\"1\"]"));
        assertEquals("input 'f': element 0 (the string '1') is not a FP32 value", e.getMessage());
        e = refused(input("f", "FP32", "[1]", "[null]"));
        assertTrue(e.getMessage().startsWith("the data of input 'f' holds null"), e.getMessage());
        e = refused(input("f", "FP32", "[1]", "[{}]"));
        assertTrue(e.getMessage().startsWith("the data of input 'f' holds {"), e.getMessage());
    }

    @Test
    void refusesShapesThatDoNotFitTheData() {
        assertEquals("input 'x': shape [2,3] takes 6 elements, data has 5",
                refused(input("x", "FP32", "[2,3]", "[1,2,3,4,5]")).getMessage());
        assertTrue(refused(input("x", "FP32", "[-1]", "[1]")).getMessage()
                .startsWith("input 'x': shape element '-1' is not a dimension"));
        assertTrue(refused(input("x", "FP32", "[1.5]", "[1]")).getMessage().contains("is not a dimension"));
        assertTrue(refused(input("x", "FP32", "[99999999999999999999]", "[1]")).getMessage()
                .contains("is not a dimension"));
        // a huge declared shape is refused before anything is allocated
        ProtocolException huge = refused(input("x", "FP32", "[100000,100000,100000]", "[1]"));
        assertEquals(400, huge.status());
        assertTrue(huge.getMessage().startsWith("input 'x': shape [100000,100000,100000] is not a valid shape"),
                huge.getMessage());
        ProtocolException overLimit = refused(input("x", "FP32", "[1000,1001]", "[1]"));
        assertEquals(413, overLimit.status());
        assertTrue(overLimit.getMessage().contains("more than the limit of 1000000"), overLimit.getMessage());
        assertTrue(refused("{\"inputs\":[{\"name\":\"x\",\"datatype\":\"FP32\",\"data\":[1]}]}").getMessage()
                .equals("input 'x' has no shape"));
        assertTrue(refused("{\"inputs\":[{\"name\":\"x\",\"shape\":[1],\"data\":[1]}]}").getMessage()
                .equals("input 'x' has no datatype"));
        assertEquals("input 'x' has neither data nor binary_data_size",
                refused("{\"inputs\":[{\"name\":\"x\",\"shape\":[1],\"datatype\":\"FP32\"}]}").getMessage());
        assertEquals("input 'x' is given twice", refused("{\"inputs\":[" + inputObject("x") + "," + inputObject("x")
                + "]}").getMessage());
    }

    private static String inputObject(String name) {
        return "{\"name\":\"" + name + "\",\"datatype\":\"FP32\",\"shape\":[1],\"data\":[1]}";
    }

    @Test
    void refusesTooManyElementsWhileParsing() {
        InferRequestDecoder small = new InferRequestDecoder(10);
        String data = "[" + "1,".repeat(20) + "1]";
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> small.decode(input("x", "FP32", "[21]", data).getBytes(StandardCharsets.UTF_8), null));
        assertEquals(413, e.status());
        assertEquals("input 'x': data holds more than 10 elements, the limit of one input", e.getMessage());
    }

    @Test
    void escapesNamesInMessages() {
        ProtocolException e = refused(input("a\\nb", "NOPE", "[1]", "[1]"));
        assertTrue(e.getMessage().startsWith("input 'a\\nb': unknown datatype"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    /** A request in the binary extension: the JSON header, then the inputs' bytes in order. */
    private static byte[] binaryRequest(String header, byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header.getBytes(StandardCharsets.UTF_8));
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] floats(float... v) {
        ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(v);
        return b.array();
    }

    private static byte[] strings(String... v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String s : v) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length).array());
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    private static String binaryHeader(long floatSize, long stringSize) {
        return "{\"inputs\":[{\"name\":\"x\",\"datatype\":\"FP32\",\"shape\":[1,3],\"parameters\":"
                + "{\"binary_data_size\":" + floatSize + "}},{\"name\":\"j\",\"datatype\":\"INT32\",\"shape\":[1],"
                + "\"data\":[7]},{\"name\":\"s\",\"datatype\":\"BYTES\",\"shape\":[2],\"parameters\":"
                + "{\"binary_data_size\":" + stringSize + "}}]}";
    }

    @Test
    void decodesBinaryData() {
        String header = binaryHeader(12, 13);
        byte[] body = binaryRequest(header, floats(1, -2, 3.5f), strings("ab", "xyz"));
        InferRequest r = decoder.decode(body, Integer.toString(header.length()));
        assertArrayEquals(new float[] {1, -2, 3.5f}, r.inputs().get(0).tensor().floats());
        assertArrayEquals(new int[] {7}, r.inputs().get(1).tensor().ints());
        assertArrayEquals(new String[] {"ab", "xyz"}, r.inputs().get(2).tensor().strings());
    }

    @Test
    void refusesBinarySizesThatDoNotAddUp() {
        String header = binaryHeader(12, 13);
        byte[] body = binaryRequest(header, floats(1, -2, 3.5f), strings("ab", "xyz"));
        String length = Integer.toString(header.length());
        // one byte more than declared
        ProtocolException e = assertThrows(ProtocolException.class, () -> decoder.decode(
                binaryRequest(header, floats(1, -2, 3.5f), strings("ab", "xyz"), new byte[1]), length));
        assertEquals("the inputs' binary_data_size add up to 25 bytes, but 26 bytes follow the JSON header",
                e.getMessage());
        // a size that does not fit the shape
        String wrong = binaryHeader(8, 17);
        e = assertThrows(ProtocolException.class, () -> decoder.decode(
                binaryRequest(wrong, floats(1, -2, 3.5f), strings("ab", "xyz")), Integer.toString(wrong.length())));
        assertEquals("input 'x': binary_data_size 8 does not fit FP32 of shape [1,3], which takes 12 bytes",
                e.getMessage());
        // a header length beyond the body, negative, or not a number
        assertTrue(assertThrows(ProtocolException.class, () -> decoder.decode(body, "100000")).getMessage()
                .contains("does not fit the body"));
        assertTrue(assertThrows(ProtocolException.class, () -> decoder.decode(body, "-5")).getMessage()
                .contains("does not fit the body"));
        assertTrue(assertThrows(ProtocolException.class, () -> decoder.decode(body, "12x")).getMessage()
                .contains("is not a number"));
        // binary_data_size without the header
        assertEquals(400, assertThrows(ProtocolException.class, () -> decoder.decode(body, null)).status());
        String alone = "{\"inputs\":[{\"name\":\"x\",\"datatype\":\"FP32\",\"shape\":[1],\"parameters\":"
                + "{\"binary_data_size\":4}}]}";
        assertEquals("input 'x' has binary_data_size, but the request has no Inference-Header-Content-Length header",
                refused(alone).getMessage());
        // huge or negative declared sizes
        assertTrue(refused(alone.replace(":4}", ":99999999999}")).getMessage()
                .contains("is not a size from 0 to"));
        assertTrue(refused(alone.replace(":4}", ":-4}")).getMessage().contains("is not a size from 0 to"));
    }

    @Test
    void refusesBrokenBinaryStrings() {
        String header = "{\"inputs\":[{\"name\":\"s\",\"datatype\":\"BYTES\",\"shape\":[2],\"parameters\":"
                + "{\"binary_data_size\":9}}]}";
        byte[] lying = ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).putInt(0x7fffffff).array();
        ProtocolException e = assertThrows(ProtocolException.class, () -> decoder.decode(
                binaryRequest(header, lying), Integer.toString(header.length())));
        assertEquals("input 's': BYTES element 0 declares 2147483647 bytes, only 5 follow", e.getMessage());
        byte[] one = strings("abcde");
        e = assertThrows(ProtocolException.class, () -> decoder.decode(binaryRequest(header, one),
                Integer.toString(header.length())));
        assertEquals("input 's': the binary data of shape [2] ends after 1 of its 2 BYTES elements", e.getMessage());
    }
}
