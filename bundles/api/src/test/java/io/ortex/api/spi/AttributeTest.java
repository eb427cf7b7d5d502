package io.ortex.api.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttributeTest {
    @Test
    void scalarsReadBack() {
        assertEquals(1.5f, Attribute.ofFloat("alpha", 1.5f).asFloat());
        assertEquals(-3, Attribute.ofInt("axis", -3).asInt());
        assertEquals("NOTSET", Attribute.ofString("auto_pad", "NOTSET").asString());
        Attribute i = Attribute.ofInt("axis", 2);
        assertEquals("axis", i.name());
        assertEquals(AttributeType.INT, i.type());
        assertEquals("axis:INT", i.toString());
    }

    @Test
    void integerReadsAsFloat() {
        assertEquals(4f, Attribute.ofInt("alpha", 4).asFloat());
    }

    @Test
    void tensorsAndGraphsReadBack() {
        Tensor t = Tensor.ofFloats(new float[] {1}, 1);
        assertSame(t, Attribute.ofTensor("value", t).asTensor());
        assertEquals(List.of(t), Attribute.ofTensors("values", List.of(t)).asTensors());
        assertEquals(List.of(), Attribute.ofGraphs("branches", List.of()).asGraphs());
        assertEquals(AttributeType.GRAPHS, Attribute.ofGraphs("branches", List.of()).type());
    }

    @Test
    void listsAreCopiedInAndOut() {
        long[] ints = {1, 2};
        Attribute a = Attribute.ofInts("pads", ints);
        ints[0] = 9;
        assertArrayEquals(new long[] {1, 2}, a.asInts());
        a.asInts()[1] = 9;
        assertArrayEquals(new long[] {1, 2}, a.asInts());
        float[] floats = {0.5f};
        Attribute f = Attribute.ofFloats("scales", floats);
        floats[0] = 9;
        assertArrayEquals(new float[] {0.5f}, f.asFloats());
        List<String> names = new ArrayList<>(List.of("a"));
        Attribute s = Attribute.ofStrings("names", names);
        names.add("b");
        assertEquals(List.of("a"), s.asStrings());
        assertThrows(UnsupportedOperationException.class, () -> s.asStrings().add("c"));
    }

    @Test
    void wrongTypeNamesTheAttribute() {
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> Attribute.ofString("mode", "linear").asInt());
        assertTrue(e.getMessage().contains("'mode'") && e.getMessage().contains("STRING")
                && e.getMessage().contains("INT"), e.getMessage());
        assertThrows(InvalidModelException.class, () -> Attribute.ofFloat("alpha", 1).asInt(),
                "a float is not silently truncated to an integer");
        assertThrows(InvalidModelException.class, () -> Attribute.ofInts("pads", new long[] {1}).asFloats());
        assertThrows(InvalidModelException.class, () -> Attribute.ofInt("x", 1).asGraph());
        assertThrows(InvalidModelException.class, () -> Attribute.ofInt("x", 1).asTensor());
        assertThrows(InvalidModelException.class, () -> Attribute.ofInt("x", 1).asStrings());
        assertThrows(InvalidModelException.class, () -> Attribute.ofInt("x", 1).asTensors());
        assertThrows(InvalidModelException.class, () -> Attribute.ofInt("x", 1).asGraphs());
        assertThrows(InvalidModelException.class, () -> Attribute.ofInt("x", 1).asString());
    }

    @Test
    void aDeferredStringIsMadeOnceWhenFirstRead() throws Exception {
        java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
        Attribute a = Attribute.ofDeferredString("ep_cache_context", () -> {
            made.incrementAndGet();
            return "payload";
        });
        assertEquals(0, made.get(), "nothing is made before it is read");
        assertEquals("ep_cache_context:STRING", a.toString());
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> assertEquals("payload", a.asString()));
            readers.add(t);
            t.start();
        }
        for (Thread t : readers) {
            t.join();
        }
        assertEquals(1, made.get());
        assertThrows(InvalidModelException.class, a::asInt);
    }

    @Test
    void nullsAreRefused() {
        assertThrows(NullPointerException.class, () -> Attribute.ofInt(null, 1));
        assertThrows(NullPointerException.class, () -> Attribute.ofString("s", null));
        assertThrows(NullPointerException.class, () -> Attribute.ofTensor("t", null));
    }

    @Test
    void aLazyStringIsDecodedOnceOnFirstRead() {
        int[] calls = {0};
        Attribute a = Attribute.ofDeferredString("payload", () -> {
            calls[0]++;
            return "text";
        });
        assertEquals(0, calls[0]);
        assertEquals("text", a.asString());
        assertEquals("text", a.asString());
        assertEquals(1, calls[0]);
        assertEquals(AttributeType.STRING, a.type());
    }
}
