package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.NodeAssignment;
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
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * EPContext with the example EP in real sessions: a session with {@code ep.context_enable=1} writes the compiled
 * model (both embed modes), which then loads from a file or from bytes without packing a weight again and computes
 * what the source model computes; and the failures: an already compiled model with generation on, an EPContext node
 * no EP claims, a context path leaving the model's folder, an output that exists, compatibility verdicts.
 */
class EpContextTest {
    static final String EP = ExampleEpFactory.NAME;

    @TempDir
    Path dir;
    Environment env;
    Path source;
    Map<String, Tensor> feeds;

    /** An MLP ending in Softmax: the example EP takes MatMul/Add/Relu, the CPU EP the Softmax. */
    static byte[] mlp(int in, int hidden, int out) {
        Random random = new Random(7);
        return new ModelBuilder()
                .input("x", -1, in)
                .initializer("w1", Tensors.random(random, in, hidden))
                .initializer("b1", Tensors.random(random, hidden))
                .initializer("w2", Tensors.random(random, hidden, out))
                .initializer("b2", Tensors.random(random, out))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h1"))
                .node("Add", "add1", List.of("h1", "b1"), List.of("h2"))
                .node("Relu", "relu", List.of("h2"), List.of("h3"))
                .node("MatMul", "mm2", List.of("h3", "w2"), List.of("h4"))
                .node("Add", "add2", List.of("h4", "b2"), List.of("logits"))
                .node("Softmax", "softmax", List.of("logits"), List.of("y"))
                .output("y").proto().toBuilder().addMetadataProps(Onnx.StringStringEntryProto.newBuilder()
                        .setKey("author").setValue("tests")).build().toByteArray();
    }

    @BeforeEach
    void setUp() throws IOException {
        env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        source = dir.resolve("mlp.onnx");
        Files.write(source, mlp(8, 16, 4));
        feeds = Map.of("x", Tensors.random(new Random(3), 3, 8));
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    static SessionOptions npu() {
        return new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU);
    }

    float[] run(Path model, SessionOptions options) {
        try (Session s = env.createSession(model, options)) {
            return s.run(feeds).get("y").floats();
        }
    }

    /** Compiles the source model through a session with generation on; returns the compiled model's path. */
    Path compileWithSession(boolean embed) {
        SessionOptions o = npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_EMBED_MODE, embed ? "1" : "0");
        try (Session s = env.createSession(source, o)) {
            assertEquals(List.of(EP, "CPUExecutionProvider"), s.executionProviders());
        }
        Path compiled = dir.resolve("mlp_ctx.onnx");
        assertTrue(Files.isRegularFile(compiled), "the default output is <model>_ctx.onnx");
        return compiled;
    }

    static Onnx.ModelProto parse(Path p) throws IOException {
        return Onnx.ModelProto.parseFrom(Files.readAllBytes(p));
    }

    static Onnx.AttributeProto attr(Onnx.NodeProto n, String name) {
        return n.getAttributeList().stream().filter(a -> a.getName().equals(name)).findFirst().orElseThrow(() ->
                new AssertionError("no attribute " + name + " on " + n.getName()));
    }

    @Test
    void embedModeZeroWritesOneContextBinaryBesideTheModelAndLoadingSkipsThePacking() throws IOException {
        float[] expected = run(source, npu());
        Path compiled = compileWithSession(false);
        Path binary = dir.resolve("mlp_ctx_" + EP + ".bin");
        assertTrue(Files.isRegularFile(binary), "context binary <model>_<ep>.bin");

        Onnx.ModelProto m = parse(compiled);
        assertEquals(List.of("EPContext", "Softmax"), m.getGraph().getNodeList().stream()
                .map(Onnx.NodeProto::getOpType).toList(), "compiled partition replaced, the CPU EP's node kept");
        Onnx.NodeProto ctx = m.getGraph().getNode(0);
        assertEquals(EpContextNode.DOMAIN, ctx.getDomain());
        assertEquals(List.of("x"), ctx.getInputList(), "constant initializers live in the payload");
        assertEquals(List.of("logits"), ctx.getOutputList());
        assertEquals(0, attr(ctx, EpContextNode.EMBED_MODE).getI());
        assertEquals(1, attr(ctx, EpContextNode.MAIN_CONTEXT).getI());
        assertEquals(binary.getFileName().toString(), attr(ctx, EpContextNode.EP_CACHE_CONTEXT).getS().toStringUtf8());
        assertEquals(EP, attr(ctx, EpContextNode.SOURCE).getS().toStringUtf8());
        assertEquals(ctx.getName(), attr(ctx, EpContextNode.PARTITION_NAME).getS().toStringUtf8());
        assertEquals(ExampleEpFactory.VERSION, attr(ctx, EpContextNode.EP_SDK_VERSION).getS().toStringUtf8());
        assertEquals(ExampleEpFactory.HARDWARE_ARCHITECTURE,
                attr(ctx, EpContextNode.HARDWARE_ARCHITECTURE).getS().toStringUtf8());
        assertTrue(m.getGraph().getInitializerList().isEmpty(), "no initializer is read by a kept node");
        assertTrue(m.getOpsetImportList().stream().anyMatch(o -> o.getDomain().equals("com.microsoft")));
        Map<String, String> meta = m.getMetadataPropsList().stream().collect(Collectors.toMap(
                Onnx.StringStringEntryProto::getKey, Onnx.StringStringEntryProto::getValue));
        assertEquals("tests", meta.get("author"), "the source's metadata is kept");
        assertEquals("ExampleExecutionProvider;version=0.1.0;format=3",
                meta.get(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX + EP));
        assertEquals(List.of(ctx.getName()), List.copyOf(ContextBinaryFile.partitions(binary, "test")));
        assertEquals(ProgramCodec.read(ContextBinaryFile.read(binary, ctx.getName(), "test")).inputNames(),
                List.of("x"));

        long packedBefore = ProgramCompiler.packedWeights();
        try (Session s = env.createSession(compiled, npu())) {
            assertEquals(packedBefore, ProgramCompiler.packedWeights(), "loading packs no weight again");
            assertArrayEquals(expected, s.run(feeds).get("y").floats());
            List<NodeAssignment> a = s.assignment();
            assertEquals(EP, a.get(0).ep());
            assertEquals("EPContext", a.get(0).opType().replace("com.microsoft::", ""));
        }
        assertTrue(ProgramCompiler.packedWeights() == packedBefore);
        run(source, npu());
        assertTrue(ProgramCompiler.packedWeights() > packedBefore, "the source model packs its weights");
    }

    @Test
    void embedModeOneKeepsThePayloadInTheNodeAndLoadsFromBytes() throws IOException {
        float[] expected = run(source, npu());
        Path compiled = compileWithSession(true);
        assertFalse(Files.exists(dir.resolve("mlp_ctx_" + EP + ".bin")));
        Onnx.NodeProto ctx = parse(compiled).getGraph().getNode(0);
        assertEquals(1, attr(ctx, EpContextNode.EMBED_MODE).getI());
        byte[] payload = attr(ctx, EpContextNode.EP_CACHE_CONTEXT).getS().toByteArray();
        assertEquals(2, ProgramCodec.read(payload).weights().size() / 2, "both layers' weights and biases");
        long packedBefore = ProgramCompiler.packedWeights();
        try (Session s = env.createSession(Files.readAllBytes(compiled), npu())) {
            assertArrayEquals(expected, s.run(feeds).get("y").floats());
        }
        assertEquals(packedBefore, ProgramCompiler.packedWeights());
    }

    @Test
    void aCompiledModelInMemoryFindsItsBinaryThroughTheContextFilePath() throws IOException {
        float[] expected = run(source, npu());
        Path compiled = compileWithSession(false);
        byte[] bytes = Files.readAllBytes(compiled);
        OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(bytes, npu()).close());
        assertTrue(e.getMessage().contains(SessionOptions.EP_CONTEXT_FILE_PATH), e.getMessage());
        SessionOptions o = npu().config(SessionOptions.EP_CONTEXT_FILE_PATH, compiled.toString());
        try (Session s = env.createSession(bytes, o)) {
            assertArrayEquals(expected, s.run(feeds).get("y").floats());
        }
    }

    @Test
    void aContextPathLeavingTheModelsFolderIsRefused() throws IOException {
        Path compiled = compileWithSession(false);
        Path inner = Files.createDirectories(dir.resolve("inner"));
        Files.copy(dir.resolve("mlp_ctx_" + EP + ".bin"), dir.resolve("outside.bin"));
        Onnx.ModelProto m = parse(compiled);
        Onnx.NodeProto ctx = m.getGraph().getNode(0);
        Onnx.NodeProto.Builder b = ctx.toBuilder().clearAttribute();
        for (Onnx.AttributeProto a : ctx.getAttributeList()) {
            b.addAttribute(a.getName().equals(EpContextNode.EP_CACHE_CONTEXT)
                    ? a.toBuilder().setS(com.google.protobuf.ByteString.copyFromUtf8("../outside.bin")).build() : a);
        }
        Path evil = inner.resolve("evil.onnx");
        Files.write(evil, m.toBuilder().setGraph(m.getGraph().toBuilder().setNode(0, b)).build().toByteArray());
        OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(evil, npu()).close());
        assertTrue(e.getMessage().contains("escapes the model's folder"), e.getMessage());
        assertTrue(e.getMessage().contains(ctx.getName()), e.getMessage());
    }

    @Test
    void loadingACompiledModelWithGenerationOnSaysItIsAlreadyCompiled() {
        Path compiled = compileWithSession(true);
        SessionOptions o = npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_FILE_PATH, dir.resolve("again.onnx").toString());
        OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(compiled, o).close());
        assertTrue(e.getMessage().contains("already compiled"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("again.onnx")));
    }

    @Test
    void anEpContextNodeNoEpClaimsFailsNamingTheNodeAndItsSource() throws IOException {
        Path compiled = compileWithSession(true);
        String node = parse(compiled).getGraph().getNode(0).getName();
        try (Environment cpuOnly = Environment.create(Map.of())) {
            OrtexException e = assertThrows(OrtexException.class,
                    () -> cpuOnly.createSession(compiled, new SessionOptions()).close());
            assertTrue(e.getMessage().contains(node) && e.getMessage().contains("source '" + EP + "'"),
                    e.getMessage());
        }
    }

    @Test
    void anUnnamedEpContextNodeIsNamedAlikeInEveryMessage() throws IOException {
        Path compiled = compileWithSession(true);
        Onnx.ModelProto m = parse(compiled);
        Onnx.NodeProto ctx = m.getGraph().getNode(0);
        List<Onnx.AttributeProto> attributes = new java.util.ArrayList<>(ctx.getAttributeList());
        attributes.replaceAll(a -> a.getName().equals(EpContextNode.EP_CACHE_CONTEXT)
                ? a.toBuilder().setS(com.google.protobuf.ByteString.copyFromUtf8("not a program")).build() : a);
        Onnx.NodeProto unnamed = ctx.toBuilder().clearName().clearAttribute().addAllAttribute(attributes).build();
        byte[] broken = m.toBuilder().setGraph(m.getGraph().toBuilder().setNode(0, unnamed)).build().toByteArray();
        OrtexException npu = assertThrows(OrtexException.class, () -> env.createSession(broken, npu()).close());
        try (Environment cpuOnly = Environment.create(Map.of())) {
            OrtexException cpu = assertThrows(OrtexException.class,
                    () -> cpuOnly.createSession(broken, new SessionOptions()).close());
            for (OrtexException e : List.of(npu, cpu)) {
                assertTrue(e.getMessage().contains("EPContext node 'EPContext_0'"), e.getMessage());
                assertFalse(e.getMessage().contains("''"), e.getMessage());
            }
        }
    }

    @Test
    void anExistingOutputIsAnErrorOnTheSessionPathAndIsLeftAsItWas() throws IOException {
        Path compiled = compileWithSession(true);
        byte[] before = Files.readAllBytes(compiled);
        SessionOptions o = npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1");
        OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(source, o).close());
        assertTrue(e.getMessage().contains("exists already"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(compiled));
    }

    @Test
    void generationFromBytesNeedsTheContextFilePath() throws IOException {
        SessionOptions o = npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1");
        byte[] bytes = Files.readAllBytes(source);
        OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(bytes, o).close());
        assertTrue(e.getMessage().contains(SessionOptions.EP_CONTEXT_FILE_PATH), e.getMessage());
        Path target = dir.resolve("out").resolve("from_bytes.onnx");
        o.config(SessionOptions.EP_CONTEXT_FILE_PATH, target.toString());
        env.createSession(bytes, o).close();
        assertTrue(Files.isRegularFile(target));
        assertTrue(Files.isRegularFile(target.resolveSibling("from_bytes_" + EP + ".bin")));
    }

    @Test
    void theNodeNamePrefixAndExternalInitializersFileApply() throws IOException {
        // w2 stays with the CPU EP when only the first layer is compiled: a Softmax between the layers splits them
        byte[] model = new ModelBuilder()
                .input("x", -1, 4)
                .initializer("w1", Tensors.random(new Random(1), 4, 4))
                .initializer("axes", Tensor.ofLongs(new long[] {1}, 1))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h1"))
                .node("Softmax", "sm", List.of("h1"), List.of("h2"))
                .node("ReduceSum", "rs", List.of("h2", "axes"), List.of("y"))
                .output("y").proto().toByteArray();
        Path p = dir.resolve("split.onnx");
        Files.write(p, model);
        SessionOptions o = npu().config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_NODE_NAME_PREFIX, "modelA_")
                .config(SessionOptions.EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME, "split_ctx.data");
        env.createSession(p, o).close();
        Onnx.ModelProto m = parse(dir.resolve("split_ctx.onnx"));
        Onnx.NodeProto ctx = m.getGraph().getNode(0);
        assertTrue(ctx.getName().startsWith("modelA_" + EP), ctx.getName());
        assertEquals(ctx.getName(), attr(ctx, EpContextNode.PARTITION_NAME).getS().toStringUtf8());
        assertEquals(List.of("axes"), m.getGraph().getInitializerList().stream().map(Onnx.TensorProto::getName)
                .toList(), "w1 went into the payload, axes stays for ReduceSum");
        assertEquals(Onnx.TensorProto.DataLocation.EXTERNAL, m.getGraph().getInitializer(0).getDataLocation());
        assertTrue(Files.isRegularFile(dir.resolve("split_ctx.data")));
        Map<String, Tensor> in = Map.of("x", Tensors.random(new Random(2), 2, 4));
        try (Session a = env.createSession(p, npu()); Session b = env.createSession(dir.resolve("split_ctx.onnx"),
                npu())) {
            assertArrayEquals(a.run(in).get("y").floats(), b.run(in).get("y").floats());
            assertEquals(ElementType.FLOAT, b.run(in).get("y").type());
        }
    }

    private Path withCompatibility(Path compiled, String info) throws IOException {
        Onnx.ModelProto m = parse(compiled);
        Onnx.ModelProto.Builder b = m.toBuilder().clearMetadataProps();
        for (Onnx.StringStringEntryProto e : m.getMetadataPropsList()) {
            b.addMetadataProps(e.getKey().equals(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX + EP)
                    ? e.toBuilder().setValue(info).build() : e);
        }
        Path p = dir.resolve("variant.onnx");
        Files.write(p, b.build().toByteArray());
        return p;
    }

    @Test
    void compatibilityVerdictsDecideWhetherACompiledModelLoads() throws IOException {
        Path compiled = compileWithSession(true);
        List<EpDevice> devices = env.epDevices().stream().filter(d -> d.epName().equals(EP)).toList();
        assertEquals(Map.of(EP, CompiledModelCompatibility.SUPPORTED_OPTIMAL),
                env.compiledModelCompatibility(compiled, devices));

        Path older = withCompatibility(compiled, EP + ";version=0.1.0;format=0");
        assertEquals(Map.of(EP, CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION),
                env.compiledModelCompatibility(older, devices));
        run(older, npu()); // a warning only
        SessionOptions strict = npu().config(SessionOptions.FAIL_ON_SUBOPTIMAL_COMPILED_MODEL, "1");
        OrtexException e = assertThrows(OrtexException.class, () -> run(older, strict));
        assertTrue(e.getMessage().contains("re-compiling"), e.getMessage());

        Path otherMajor = withCompatibility(compiled, EP + ";version=1.0.0;format=1");
        assertEquals(Map.of(EP, CompiledModelCompatibility.UNSUPPORTED),
                env.compiledModelCompatibility(otherMajor, devices));
        e = assertThrows(OrtexException.class, () -> run(otherMajor, npu()));
        assertTrue(e.getMessage().contains("not supported by execution provider: " + EP), e.getMessage());

        List<EpDevice> cpu = env.epDevices().stream().filter(d -> d.epName().equals("CPUExecutionProvider"))
                .toList();
        assertEquals(Map.of(), env.compiledModelCompatibility(compiled, cpu), "the model names no CPU EP string");
    }
}
