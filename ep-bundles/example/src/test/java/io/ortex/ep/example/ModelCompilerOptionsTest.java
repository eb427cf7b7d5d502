package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.CompileResult;
import io.ortex.api.Environment;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.InitializerPlacement;
import io.ortex.api.InitializerPlacement.Decision;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.ModelCompiler;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import io.ortex.onnx.ModelWriter;
import io.ortex.onnx.proto.Onnx;
import io.ortex.runtime.internal.epcontext.ContextBinaryFile;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compile API's initializer placement, EP context binary information and graph optimization level, with the
 * example EP.
 */
class ModelCompilerOptionsTest {
    @TempDir
    Path dir;
    Environment env;
    Map<String, Tensor> feeds;

    @BeforeEach
    void setUp() {
        env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        feeds = Map.of("x", Tensors.random(new Random(5), 2, 16));
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    /**
     * Two CPU-only Subs read a 4-byte and a 64-byte initializer, which the compiled model keeps; the example EP
     * compiles the MatMul, whose weight goes into its payload; the CPU EP runs the Softmax.
     */
    static Onnx.ModelProto subMatMul() {
        Random random = new Random(11);
        return new ModelBuilder()
                .input("x", -1, 16)
                .initializer("small", Tensors.random(random, 1))
                .initializer("big", Tensors.random(random, 16))
                .initializer("w", Tensors.random(random, 16, 4))
                .node("Sub", "sub1", List.of("x", "small"), List.of("s1"))
                .node("Sub", "sub2", List.of("s1", "big"), List.of("s2"))
                .node("MatMul", "mm", List.of("s2", "w"), List.of("logits"))
                .node("Softmax", "softmax", List.of("logits"), List.of("y"))
                .output("y").proto();
    }

    private ModelCompiler compiler() {
        return env.modelCompiler(EpContextTest.npu());
    }

    private float[] run(Path model) {
        try (Session s = env.createSession(model, EpContextTest.npu())) {
            return s.run(feeds).get("y").floats();
        }
    }

    private static Map<String, Onnx.TensorProto> initializers(Path model) throws IOException {
        return EpContextTest.parse(model).getGraph().getInitializerList().stream()
                .collect(Collectors.toMap(Onnx.TensorProto::getName, t -> t));
    }

    private static Map<String, String> externalData(Onnx.TensorProto t) {
        return t.getExternalDataList().stream().collect(Collectors.toMap(Onnx.StringStringEntryProto::getKey,
                Onnx.StringStringEntryProto::getValue));
    }

    private List<String> files() throws IOException {
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString().replace('\\', '/')).sorted()
                    .toList();
        }
    }

    @Test
    void thresholdPlacementMovesLargeKeptInitializersToOneAlignedFile() throws IOException {
        Path source = dir.resolve("net.onnx");
        Files.write(source, subMatMul().toByteArray());
        float[] expected = run(source);
        List<InitializerPlacement.Initializer> seen = new ArrayList<>();
        Path out = dir.resolve("out.onnx");
        CompileResult r = compiler().inputModel(source).embedMode(true).initializerPlacement(i -> {
            seen.add(i);
            return i.byteSize() >= 64 ? Decision.EXTERNAL : Decision.EMBED;
        }).compileToFile(out);
        assertEquals(List.of("small", "big"), seen.stream().map(InitializerPlacement.Initializer::name).toList(),
                "only the initializers of nodes no EP compiled, in the source's order");
        assertEquals(List.of(16L), seen.get(1).shape());
        assertEquals(64, seen.get(1).byteSize());
        assertEquals(null, seen.get(1).source(), "the source embeds it");
        Path data = dir.resolve("out_initializers.bin");
        assertEquals(List.of(data, out), r.files());
        Map<String, Onnx.TensorProto> inits = initializers(out);
        assertEquals(Map.of("location", "out_initializers.bin", "offset", "0", "length", "64"),
                externalData(inits.get("big")));
        assertTrue(inits.get("small").hasRawData());
        assertFalse(inits.containsKey("w"), "the compiled MatMul carries its weight");
        assertEquals(64, Files.size(data));
        assertArrayEquals(expected, run(out));

        Path all = dir.resolve("all.onnx");
        compiler().inputModel(source).embedMode(true).initializerPlacement(i -> Decision.EXTERNAL)
                .compileToFile(all);
        inits = initializers(all);
        assertEquals(Map.of("location", "all_initializers.bin", "offset", "0", "length", "4"),
                externalData(inits.get("small")));
        assertEquals(Map.of("location", "all_initializers.bin", "offset", "64", "length", "64"),
                externalData(inits.get("big")), "each initializer starts at a 64-byte boundary");
        assertEquals(128, Files.size(dir.resolve("all_initializers.bin")));
        assertArrayEquals(expected, run(all));
    }

    @Test
    void keepingTheSourcesExternalDataReferencesTheSourceFile() throws IOException {
        Path source = dir.resolve("src").resolve("net.onnx");
        Files.createDirectories(source.getParent());
        ModelWriter.write(subMatMul(), source, "weights.data", 0);
        Map<String, String> sourceBig = externalData(initializers(source).get("big"));
        float[] expected = run(source);
        Path out = dir.resolve("out.onnx");
        CompileResult r = compiler().inputModel(source).embedMode(true)
                .initializerPlacement(i -> i.source() != null ? Decision.KEEP_SOURCE : Decision.EMBED)
                .compileToFile(out);
        assertEquals(List.of(out), r.files(), "no external initializers file is written");
        Map<String, Onnx.TensorProto> inits = initializers(out);
        assertEquals(Map.of("location", "src/weights.data", "offset", sourceBig.get("offset"),
                "length", "64"), externalData(inits.get("big")));
        assertFalse(inits.get("big").hasRawData());
        assertArrayEquals(expected, run(out));

        List<String> before = files();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> compiler()
                .inputModel(source).embedMode(true).initializerPlacement(i -> Decision.KEEP_SOURCE)
                .compileToFile(dir.resolve("elsewhere").resolve("out.onnx")));
        assertTrue(e.getMessage().contains("initializer 'small'") && e.getMessage().contains("not inside"),
                e.getMessage());
        assertEquals(before, files(), "a refused placement writes nothing");

        Path embedded = dir.resolve("embedded.onnx");
        Files.write(embedded, subMatMul().toByteArray());
        e = assertThrows(InvalidArgumentException.class, () -> compiler().inputModel(embedded).embedMode(true)
                .initializerPlacement(i -> Decision.KEEP_SOURCE).compileToFile(dir.resolve("o2.onnx")));
        assertTrue(e.getMessage().contains("source embeds it"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("o2.onnx")));
    }

    @Test
    void contextBinariesGoWhereTheBinaryInformationSays() throws IOException {
        Path source = dir.resolve("net.onnx");
        Files.write(source, subMatMul().toByteArray());
        float[] expected = run(source);
        Path out = dir.resolve("out.onnx");
        CompileResult r = compiler().inputModel(source).epContextBinaryInformation(dir.resolve("bins"), "tiny")
                .compileToFile(out);
        Path binary = dir.resolve("bins").resolve("tiny_" + EpContextTest.EP + ".bin");
        assertEquals(List.of(binary, out), r.files());
        Onnx.NodeProto ctx = EpContextTest.parse(out).getGraph().getNodeList().stream()
                .filter(n -> n.getOpType().equals("EPContext")).findFirst().orElseThrow();
        assertEquals("bins/tiny_" + EpContextTest.EP + ".bin",
                EpContextTest.attr(ctx, "ep_cache_context").getS().toStringUtf8());
        assertTrue(ContextBinaryFile.read(binary, ctx.getName(), "test").length > 0);
        assertArrayEquals(expected, run(out));

        List<String> before = files();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> compiler()
                .inputModel(source).epContextBinaryInformation(dir.resolveSibling("outside"), "tiny")
                .compileToFile(dir.resolve("escaping.onnx")));
        assertTrue(e.getMessage().contains("not the compiled model's folder"), e.getMessage());
        assertEquals(before, files());
        assertThrows(InvalidArgumentException.class, () -> compiler().epContextBinaryInformation(dir, ""));
        assertThrows(InvalidArgumentException.class, () -> compiler().epContextBinaryInformation(dir, "a/b"));

        byte[] compiled = compiler().inputModel(source).epContextBinaryInformation(dir, "mem").compileToBytes();
        assertTrue(Files.isRegularFile(dir.resolve("mem_" + EpContextTest.EP + ".bin")));
        Path placed = dir.resolve("placed.onnx");
        Files.write(placed, compiled);
        assertArrayEquals(expected, run(placed));
    }

    /** Identity chains around a MatMul and Relu, an Identity into the graph output, and a dead branch. */
    static Onnx.ModelProto identitiesAndDeadBranch() {
        Random random = new Random(13);
        return new ModelBuilder()
                .input("x", -1, 16)
                .initializer("w", Tensors.random(random, 16, 4))
                .initializer("unused", Tensors.random(random, 16))
                .node("Identity", "id1", List.of("x"), List.of("i1"))
                .node("Identity", "id2", List.of("i1"), List.of("i2"))
                .node("MatMul", "mm", List.of("i2", "w"), List.of("h"))
                .node("Relu", "relu", List.of("h"), List.of("r"))
                .node("Identity", "id3", List.of("r"), List.of("r2"))
                .node("Mul", "dead1", List.of("i1", "i1"), List.of("d1"))
                .node("Sub", "dead2", List.of("d1", "unused"), List.of("d2"))
                .node("Softmax", "softmax", List.of("r2"), List.of("s"))
                .node("Identity", "id4", List.of("s"), List.of("y"))
                .output("y").proto();
    }

    @Test
    void basicOptimizationRemovesIdentitiesAndDeadNodes() throws IOException {
        Path source = dir.resolve("net.onnx");
        Files.write(source, identitiesAndDeadBranch().toByteArray());
        float[] expected = run(source);
        Path plain = dir.resolve("plain.onnx");
        compiler().inputModel(source).embedMode(true).compileToFile(plain);
        Path basic = dir.resolve("basic.onnx");
        compiler().inputModel(source).embedMode(true).graphOptimizationLevel(GraphOptimizationLevel.BASIC)
                .compileToFile(basic);
        List<Onnx.NodeProto> plainNodes = EpContextTest.parse(plain).getGraph().getNodeList();
        List<Onnx.NodeProto> basicNodes = EpContextTest.parse(basic).getGraph().getNodeList();
        assertEquals(4, plainNodes.stream().filter(n -> n.getOpType().equals("Identity")).count(),
                "DISABLE_ALL, the default, keeps every node");
        assertEquals(List.of("EPContext", "Softmax"), basicNodes.stream().map(Onnx.NodeProto::getOpType).toList());
        assertTrue(basicNodes.size() < plainNodes.size());
        assertEquals("y", basicNodes.get(1).getOutput(0), "the Softmax now writes the graph output");
        assertFalse(initializers(basic).containsKey("unused"));
        assertArrayEquals(expected, run(plain));
        assertArrayEquals(expected, run(basic));
        Path all = dir.resolve("all.onnx");
        compiler().inputModel(source).embedMode(true).graphOptimizationLevel(GraphOptimizationLevel.ALL)
                .compileToFile(all);
        assertEquals(basicNodes.size(), EpContextTest.parse(all).getGraph().getNodeCount(), "ALL does what BASIC does");
    }
}
