package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.api.Environment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.EpContextNode;
import io.ortex.ep.example.program.ProgramCodec;
import io.ortex.onnx.proto.Onnx;
import io.ortex.runtime.internal.epcontext.ContextBinaryFile;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Embed mode 0 with several partitions of one EP: one context binary {@code <model>_<EP>.bin} beside the model, one
 * main EPContext node naming it and the others ({@code main_context=0}) reading their payload from it by partition
 * name; and the refusals when the binary's index is damaged, a partition is missing from it, or no main node exists.
 */
class ContextBinaryTest {
    static final String EP = EpContextTest.EP;
    static final String PREFIX = "modelA_";

    @TempDir
    Path dir;
    Environment env;
    Path source;
    Map<String, Tensor> feeds;

    /** Three MLP layers, each followed by a Softmax, which the CPU EP takes: three partitions of the example EP. */
    static byte[] threeLayers() {
        return threeLayers("");
    }

    /** The same layers with {@code suffix} after every name but the input's. */
    static byte[] threeLayers(String suffix) {
        Random random = new Random(11);
        ModelBuilder b = new ModelBuilder().input("x", -1, 6);
        String in = "x";
        for (int i = 1; i <= 3; i++) {
            String w = "w" + i + suffix;
            String bias = "b" + i + suffix;
            b.initializer(w, Tensors.random(random, 6, 6)).initializer(bias, Tensors.random(random, 6))
                    .node("MatMul", "mm" + i + suffix, List.of(in, w), List.of("m" + i + suffix))
                    .node("Add", "add" + i + suffix, List.of("m" + i + suffix, bias), List.of("a" + i + suffix))
                    .node("Softmax", "sm" + i + suffix, List.of("a" + i + suffix), List.of((i == 3 ? "y" : "s" + i)
                            + suffix));
            in = "s" + i + suffix;
        }
        return b.output("y" + suffix).proto().toByteArray();
    }

    @BeforeEach
    void setUp() throws IOException {
        env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        source = dir.resolve("layers.onnx");
        Files.write(source, threeLayers());
        feeds = Map.of("x", Tensors.random(new Random(5), 2, 6));
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    float[] run(Path model) {
        try (Session s = env.createSession(model, EpContextTest.npu())) {
            return s.run(feeds).get("y").floats();
        }
    }

    Path compile() {
        SessionOptions o = EpContextTest.npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_NODE_NAME_PREFIX, PREFIX);
        env.createSession(source, o).close();
        return dir.resolve("layers_ctx.onnx");
    }

    List<String> files() throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static List<Onnx.NodeProto> contextNodes(Onnx.ModelProto m) {
        return m.getGraph().getNodeList().stream().filter(n -> n.getOpType().equals("EPContext")).toList();
    }

    static boolean has(Onnx.NodeProto n, String attr) {
        return n.getAttributeList().stream().anyMatch(a -> a.getName().equals(attr));
    }

    @Test
    void threePartitionsGoIntoOneBinaryReadThroughTheMainNode() throws IOException {
        float[] expected = run(source);
        Path compiled = compile();
        String binary = "layers_ctx_" + EP + ".bin";
        assertEquals(List.of("layers.onnx", "layers_ctx.onnx", binary), files(), "one context binary for the EP");

        List<Onnx.NodeProto> ctx = contextNodes(EpContextTest.parse(compiled));
        assertEquals(3, ctx.size());
        Onnx.NodeProto main = ctx.get(0);
        assertEquals(1, EpContextTest.attr(main, EpContextNode.MAIN_CONTEXT).getI());
        assertEquals(binary, EpContextTest.attr(main, EpContextNode.EP_CACHE_CONTEXT).getS().toStringUtf8());
        for (Onnx.NodeProto n : ctx) {
            assertEquals(0, EpContextTest.attr(n, EpContextNode.EMBED_MODE).getI());
            assertEquals(EP, EpContextTest.attr(n, EpContextNode.SOURCE).getS().toStringUtf8());
            String partition = EpContextTest.attr(n, EpContextNode.PARTITION_NAME).getS().toStringUtf8();
            assertEquals(n.getName(), partition);
            assertTrue(partition.startsWith(PREFIX + EP), partition);
        }
        for (Onnx.NodeProto n : ctx.subList(1, 3)) {
            assertEquals(0, EpContextTest.attr(n, EpContextNode.MAIN_CONTEXT).getI(), n.getName());
            assertFalse(has(n, EpContextNode.EP_CACHE_CONTEXT), "a non-main node names no file: " + n.getName());
        }
        Path bin = dir.resolve(binary);
        assertEquals(ctx.stream().map(Onnx.NodeProto::getName).toList(),
                List.copyOf(ContextBinaryFile.partitions(bin, "test")), "the index holds the three partitions");
        assertEquals(List.of("s2"), ProgramCodec.read(ContextBinaryFile.read(bin, ctx.get(2).getName(), "test"))
                .inputNames(), "the third layer's payload under the third node's partition name");

        long packedBefore = ProgramCompiler.packedWeights();
        try (Session s = env.createSession(compiled, EpContextTest.npu())) {
            assertEquals(packedBefore, ProgramCompiler.packedWeights(), "loading packs no weight again");
            assertArrayEquals(expected, s.run(feeds).get("y").floats());
            assertEquals(3, s.assignment().stream().filter(a -> a.ep().equals(EP)).count());
        }
    }

    @Test
    void aCorruptedIndexIsRefusedNamingTheNodeAndTheFile() throws IOException {
        Path compiled = compile();
        Path bin = dir.resolve("layers_ctx_" + EP + ".bin");
        byte[] bytes = Files.readAllBytes(bin);
        bytes[16 + 4 + 1] ^= 0x01; // inside the first partition name
        Files.write(bin, bytes);
        OrtexException e = assertThrows(OrtexException.class, () -> run(compiled));
        assertTrue(e.getMessage().contains("index is corrupted") && e.getMessage().contains(bin.toString())
                && e.getMessage().contains("EPContext node '" + PREFIX + EP), e.getMessage());
    }

    /** Writes a copy of the compiled model with one EPContext node changed. */
    Path edited(Path compiled, int index, UnaryOperator<Onnx.NodeProto> change) throws IOException {
        Onnx.ModelProto m = EpContextTest.parse(compiled);
        Onnx.GraphProto.Builder g = m.getGraph().toBuilder();
        int seen = 0;
        for (int i = 0; i < g.getNodeCount(); i++) {
            if (g.getNode(i).getOpType().equals("EPContext") && seen++ == index) {
                g.setNode(i, change.apply(g.getNode(i)));
            }
        }
        Path p = dir.resolve("edited.onnx");
        Files.write(p, m.toBuilder().setGraph(g).build().toByteArray());
        return p;
    }

    static Onnx.NodeProto withAttr(Onnx.NodeProto n, String name, Onnx.AttributeProto value) {
        Onnx.NodeProto.Builder b = n.toBuilder().clearAttribute();
        for (Onnx.AttributeProto a : n.getAttributeList()) {
            if (!a.getName().equals(name)) {
                b.addAttribute(a);
            }
        }
        if (value != null) {
            b.addAttribute(value);
        }
        return b.build();
    }

    @Test
    void aPartitionMissingFromTheBinaryIsRefusedNamingTheNode() throws IOException {
        Path compiled = compile();
        String node = contextNodes(EpContextTest.parse(compiled)).get(1).getName();
        Path p = edited(compiled, 1, n -> withAttr(n, EpContextNode.PARTITION_NAME, Onnx.AttributeProto.newBuilder()
                .setName(EpContextNode.PARTITION_NAME).setType(Onnx.AttributeProto.AttributeType.STRING)
                .setS(ByteString.copyFromUtf8("modelB_gone")).build()));
        OrtexException e = assertThrows(OrtexException.class, () -> run(p));
        assertTrue(e.getMessage().contains("EPContext node '" + node + "'")
                && e.getMessage().contains("has no partition 'modelB_gone'"), e.getMessage());
    }

    @Test
    void aNonMainNodeWithoutAMainNodeOfItsSourceIsRefused() throws IOException {
        Path compiled = compile();
        Path p = edited(compiled, 0, n -> withAttr(n, EpContextNode.MAIN_CONTEXT, Onnx.AttributeProto.newBuilder()
                .setName(EpContextNode.MAIN_CONTEXT).setType(Onnx.AttributeProto.AttributeType.INT).setI(0)
                .build()));
        OrtexException e = assertThrows(OrtexException.class, () -> run(p));
        assertTrue(e.getMessage().contains("main_context=0, but the model has no EPContext node with main_context=1")
                && e.getMessage().contains("source '" + EP + "'")
                && e.getMessage().contains("EPContext node '" + PREFIX + EP), e.getMessage());
    }

    /** Compiles a source to {@code <name>.onnx} with a node name prefix. */
    Onnx.ModelProto compileAs(Path from, String name, String prefix) throws IOException {
        Path out = dir.resolve(name + ".onnx");
        SessionOptions o = EpContextTest.npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_FILE_PATH, out.toString())
                .config(SessionOptions.EP_CONTEXT_NODE_NAME_PREFIX, prefix);
        env.createSession(from, o).close();
        return EpContextTest.parse(out);
    }

    @Test
    void twoCompiledModelsMergedIntoOneFindTheirPartitionsInTheirOwnBinaries() throws IOException {
        float[] expected = run(source);
        Path sourceB = dir.resolve("layers_b.onnx");
        Files.write(sourceB, threeLayers("_b"));
        Onnx.ModelProto a = compileAs(source, "a", "modelA_");
        Onnx.ModelProto b = compileAs(sourceB, "b", "modelB_");
        Onnx.GraphProto.Builder g = a.getGraph().toBuilder().addAllNode(b.getGraph().getNodeList())
                .addAllOutput(b.getGraph().getOutputList());
        assertTrue(Files.isRegularFile(dir.resolve("a_" + EP + ".bin")) && Files.isRegularFile(dir.resolve("b_" + EP
                + ".bin")), "one binary per compiled model");
        Path merged = dir.resolve("merged.onnx");
        Files.write(merged, a.toBuilder().setGraph(g).build().toByteArray());
        assertEquals(2, contextNodes(EpContextTest.parse(merged)).stream()
                .filter(n -> EpContextTest.attr(n, EpContextNode.MAIN_CONTEXT).getI() == 1).count());

        long packedBefore = ProgramCompiler.packedWeights();
        try (Session s = env.createSession(merged, EpContextTest.npu())) {
            Map<String, Tensor> out = s.run(feeds);
            assertArrayEquals(expected, out.get("y").floats());
            assertArrayEquals(expected, out.get("y_b").floats());
            assertEquals(6, s.assignment().stream().filter(x -> x.ep().equals(EP)).count());
        }
        assertEquals(packedBefore, ProgramCompiler.packedWeights());
    }

    @Test
    void embedModeOneKeepsEveryPayloadInItsNode() throws IOException {
        float[] expected = run(source);
        SessionOptions o = EpContextTest.npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_EMBED_MODE, "1");
        env.createSession(source, o).close();
        assertEquals(List.of("layers.onnx", "layers_ctx.onnx"), files());
        Path compiled = dir.resolve("layers_ctx.onnx");
        for (Onnx.NodeProto n : contextNodes(EpContextTest.parse(compiled))) {
            assertEquals(1, EpContextTest.attr(n, EpContextNode.MAIN_CONTEXT).getI());
            assertEquals(1, EpContextTest.attr(n, EpContextNode.EMBED_MODE).getI());
        }
        assertArrayEquals(expected, run(compiled));
    }
}
