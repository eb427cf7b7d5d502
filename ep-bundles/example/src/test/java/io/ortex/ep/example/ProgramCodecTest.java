package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.InvalidModelException;
import io.ortex.api.spi.GraphView;
import io.ortex.ep.example.program.PackedWeight;
import io.ortex.ep.example.program.Program;
import io.ortex.ep.example.program.ProgramCodec;
import io.ortex.onnx.OnnxModel;
import io.ortex.testing.Attributes;
import io.ortex.testing.ModelBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The serialized program format and the factory's compatibility verdicts. */
class ProgramCodecTest {
    private static Program compiled() {
        OnnxModel model = new ModelBuilder()
                .input("x", -1, 4)
                .initializer("w", Tensors.random(new Random(1), 4, 3))
                .initializer("b", Tensors.random(new Random(2), 3))
                .initializer("g", Tensors.random(new Random(3), 3, 2))
                .node("MatMul", "mm", List.of("x", "w"), List.of("h"))
                .node("Add", "add", List.of("h", "b"), List.of("h2"))
                .node("Relu", "relu", List.of("h2"), List.of("h3"))
                .node("Gemm", "gemm", List.of("h3", "g"), List.of("y"), Attributes.attr("alpha", 0.5f))
                .output("y").build();
        GraphView g = model.graph();
        TestFusedNode fused = new TestFusedNode("p", List.of("x"), List.of("y"));
        return new ProgramCompiler(true).compile(g, fused);
    }

    @Test
    void aProgramRoundTripsWithItsPackedWeights() {
        Program p = compiled();
        byte[] bytes = ProgramCodec.write(p);
        Program back = ProgramCodec.read(bytes);
        assertEquals(p, back);
        for (int i = 0; i < p.weights().size(); i++) {
            PackedWeight a = p.weights().get(i);
            PackedWeight b = back.weights().get(i);
            assertEquals(a.name(), b.name());
            assertArrayEquals(a.value().shape(), b.value().shape());
            assertArrayEquals(a.value().floats(), b.value().floats());
        }
        assertArrayEquals(bytes, ProgramCodec.write(back), "writing is deterministic");
    }

    @Test
    void damagedBytesAreRefusedWithAReason() {
        byte[] bytes = ProgramCodec.write(compiled());
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> ProgramCodec.read(Arrays.copyOf(bytes, bytes.length - 3)));
        assertTrue(e.getMessage().contains("truncated") || e.getMessage().contains("count"), e.getMessage());
        byte[] magic = bytes.clone();
        magic[0] ^= 1;
        assertTrue(assertThrows(InvalidModelException.class, () -> ProgramCodec.read(magic)).getMessage()
                .contains("magic"));
        byte[] format = bytes.clone();
        format[4] = 9;
        assertTrue(assertThrows(InvalidModelException.class, () -> ProgramCodec.read(format)).getMessage()
                .contains("format 9"));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(InvalidModelException.class, () -> ProgramCodec.read(longer));
    }

    @Test
    void sharedWeightsRoundTripThroughTheirBlobsAndAreCheckedForSize() {
        Program p = compiled();
        ProgramCodec.Shared shared = ProgramCodec.writeShared(p);
        assertTrue(shared.blobs().size() > 0 && shared.blobs().size() <= p.weights().size());
        java.util.Map<String, byte[]> byKey = new java.util.HashMap<>();
        shared.blobs().forEach(b -> byKey.put(b.key(), b.data()));
        Program back = ProgramCodec.read(shared.bytes(), byKey::get);
        for (int i = 0; i < p.weights().size(); i++) {
            assertArrayEquals(p.weights().get(i).value().floats(), back.weights().get(i).value().floats());
        }
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> ProgramCodec.read(shared.bytes()));
        assertTrue(e.getMessage().contains("shared"), e.getMessage());
        assertTrue(assertThrows(InvalidModelException.class, () -> ProgramCodec.read(shared.bytes(),
                k -> new byte[3])).getMessage().contains("3 bytes"));
    }

    @Test
    void theValidatorJudgesVersionAndFormat() {
        ExampleEpFactory f = new ExampleEpFactory();
        List<io.ortex.api.HardwareDevice> d = List.of(ExampleEpFactory.VIRTUAL_NPU);
        String n = ExampleEpFactory.NAME;
        assertEquals("ExampleExecutionProvider;version=0.1.0;format=3", ExampleEpFactory.compatibilityInfo());
        assertEquals(CompiledModelCompatibility.SUPPORTED_OPTIMAL,
                f.validateCompiledModelCompatibility(d, ExampleEpFactory.compatibilityInfo()));
        assertEquals(CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION,
                f.validateCompiledModelCompatibility(d, n + ";version=0.1.0;format=0"));
        assertEquals(CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION,
                f.validateCompiledModelCompatibility(d, n + ";version=0.0.9;format=1"));
        assertEquals(CompiledModelCompatibility.UNSUPPORTED,
                f.validateCompiledModelCompatibility(d, n + ";version=1.0.0;format=1"));
        assertEquals(CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION,
                f.validateCompiledModelCompatibility(d, n + ";version=0.1.0;format=1"));
        assertEquals(CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION,
                f.validateCompiledModelCompatibility(d, n + ";version=0.1.0;format=2"));
        assertEquals(CompiledModelCompatibility.UNSUPPORTED,
                f.validateCompiledModelCompatibility(d, n + ";version=0.1.0;format=4"));
        assertEquals(CompiledModelCompatibility.UNSUPPORTED,
                f.validateCompiledModelCompatibility(d, "OtherEP;version=0.1.0;format=1"));
        assertEquals(CompiledModelCompatibility.UNSUPPORTED, f.validateCompiledModelCompatibility(d, "garbage"));
    }
}
