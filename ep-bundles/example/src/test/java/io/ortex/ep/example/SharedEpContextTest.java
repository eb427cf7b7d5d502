package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.CompileResult;
import io.ortex.api.Environment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.EpContextNode;
import io.ortex.onnx.proto.Onnx;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weight sharing across compiled models ({@code ep.share_ep_contexts} / {@code ep.stop_share_ep_contexts}): three
 * MLPs with the same first layer compile into three models and one shared context binary holding that layer once,
 * and each compiled model computes what its source computes.
 */
class SharedEpContextTest {
    static final int IN = 16;
    static final int HIDDEN = 64;
    static final int OUT = 4;

    @TempDir
    Path dir;
    Environment env;
    Path sources;
    Path out;
    Map<String, Tensor> feeds;

    /** An MLP whose first layer is the same for every seed and whose second layer depends on the seed. */
    static byte[] mlp(int seed) {
        Random shared = new Random(11);
        Tensor w1 = Tensors.random(shared, IN, HIDDEN);
        Tensor b1 = Tensors.random(shared, HIDDEN);
        Random own = new Random(seed);
        return new ModelBuilder()
                .input("x", -1, IN)
                .initializer("w1", w1)
                .initializer("b1", b1)
                .initializer("w2", Tensors.random(own, HIDDEN, OUT))
                .initializer("b2", Tensors.random(own, OUT))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h1"))
                .node("Add", "add1", List.of("h1", "b1"), List.of("h2"))
                .node("Relu", "relu", List.of("h2"), List.of("h3"))
                .node("MatMul", "mm2", List.of("h3", "w2"), List.of("h4"))
                .node("Add", "add2", List.of("h4", "b2"), List.of("y"))
                .output("y").proto().toByteArray();
    }

    @BeforeEach
    void setUp() throws IOException {
        env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        sources = Files.createDirectories(dir.resolve("src"));
        out = Files.createDirectories(dir.resolve("out"));
        for (int i = 1; i <= 3; i++) {
            Files.write(sources.resolve("mlp" + i + ".onnx"), mlp(100 + i));
        }
        feeds = Map.of("x", Tensors.random(new Random(3), 5, IN));
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    private float[] run(Path model) {
        try (Session s = env.createSession(model, EpContextTest.npu())) {
            return s.run(feeds).get("y").floats();
        }
    }

    private static List<String> list(Path folder) throws IOException {
        try (var s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static Onnx.NodeProto epContextNode(Path model) throws IOException {
        return EpContextTest.parse(model).getGraph().getNodeList().stream()
                .filter(n -> n.getOpType().equals(EpContextNode.OP_TYPE)).findFirst().orElseThrow();
    }

    private static List<String> blobKeys(Onnx.NodeProto n) {
        return EpContextTest.attr(n, EpContextNode.SHARED_BLOBS).getStringsList().stream()
                .map(com.google.protobuf.ByteString::toStringUtf8).toList();
    }

    /** Compiles the three models as one sharing group, the last one stopping it. */
    private List<CompileResult> compileGroup(boolean embed) {
        List<CompileResult> results = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            SessionOptions o = EpContextTest.npu().config(i < 3 ? SessionOptions.EP_SHARE_EP_CONTEXTS
                    : SessionOptions.EP_STOP_SHARE_EP_CONTEXTS, "1");
            results.add(env.modelCompiler(o).inputModel(sources.resolve("mlp" + i + ".onnx")).embedMode(embed)
                    .compileToFile(out.resolve("mlp" + i + "_ctx.onnx")));
        }
        return results;
    }

    @Test
    void threeModelsGiveThreeCompiledModelsAndOneSharedBinaryWithTheCommonLayerOnce() throws IOException {
        List<CompileResult> results = compileGroup(false);
        Path bin = out.resolve("mlp1_ctx_shared.bin");
        assertEquals(List.of("mlp1_ctx.onnx", "mlp2_ctx.onnx", "mlp3_ctx.onnx", "mlp1_ctx_shared.bin").stream()
                .sorted().toList(), list(out), "3 compiled models + 1 shared context binary");
        assertEquals(List.of(out.resolve("mlp3_ctx.onnx"), bin), results.get(2).files(),
                "the last session writes the shared binary");

        List<List<String>> keys = new ArrayList<>();
        Set<String> distinct = new HashSet<>();
        Set<String> payloads = new HashSet<>();
        for (int i = 1; i <= 3; i++) {
            Onnx.NodeProto n = epContextNode(out.resolve("mlp" + i + "_ctx.onnx"));
            assertEquals("mlp1_ctx_shared.bin", EpContextTest.attr(n, EpContextNode.EP_CACHE_CONTEXT).getS()
                    .toStringUtf8());
            assertEquals(0, EpContextTest.attr(n, EpContextNode.EMBED_MODE).getI());
            assertEquals(i == 1 ? 1 : 0, EpContextTest.attr(n, EpContextNode.MAIN_CONTEXT).getI(),
                    "main_context only on the group's first node");
            payloads.add(EpContextTest.attr(n, EpContextNode.CONTEXT_KEY).getS().toStringUtf8());
            keys.add(blobKeys(n));
            distinct.addAll(blobKeys(n));
        }
        assertEquals(4, keys.get(0).size(), "w1, b1, w2, b2");
        Set<String> common = new HashSet<>(keys.get(0));
        keys.forEach(common::retainAll);
        assertEquals(2, common.size(), "the first layer's weight and bias are the same blobs in all three");
        assertEquals(2 + 3 * 2, distinct.size());
        assertEquals(3, payloads.size());
        ByteBuffer head = ByteBuffer.wrap(Files.readAllBytes(bin)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x4353584F, head.getInt(0));
        assertEquals(distinct.size() + payloads.size(), head.getInt(8), "each content once in the binary");

        // the same three compiled without sharing: one binary each, the first layer three times
        long separate = 0;
        for (int i = 1; i <= 3; i++) {
            Path alone = dir.resolve("alone" + i + ".onnx");
            env.modelCompiler(EpContextTest.npu()).inputModel(sources.resolve("mlp" + i + ".onnx"))
                    .compileToFile(alone);
            separate += Files.size(dir.resolve("alone" + i + "_" + EpContextTest.EP + ".bin"));
        }
        long w1Bytes = 4L * IN * HIDDEN;
        assertTrue(Files.size(bin) < separate, Files.size(bin) + " < " + separate);
        assertTrue(Files.size(bin) < separate - w1Bytes, "sharing saves more than one copy of w1 (keys and index"
                + " cost a little): " + Files.size(bin) + " vs " + separate);

        for (int i = 1; i <= 3; i++) {
            assertArrayEquals(run(sources.resolve("mlp" + i + ".onnx")), run(out.resolve("mlp" + i + "_ctx.onnx")),
                    "compiled model " + i);
        }
    }

    @Test
    void embeddedPayloadsStillShareTheirWeights() throws IOException {
        compileGroup(true);
        assertEquals(List.of("mlp1_ctx.onnx", "mlp1_ctx_shared.bin", "mlp2_ctx.onnx", "mlp3_ctx.onnx"), list(out));
        Onnx.NodeProto n = epContextNode(out.resolve("mlp2_ctx.onnx"));
        assertEquals(1, EpContextTest.attr(n, EpContextNode.EMBED_MODE).getI());
        assertEquals("mlp1_ctx_shared.bin", EpContextTest.attr(n, EpContextNode.SHARED_CONTEXT).getS()
                .toStringUtf8());
        for (int i = 1; i <= 3; i++) {
            assertArrayEquals(run(sources.resolve("mlp" + i + ".onnx")), run(out.resolve("mlp" + i + "_ctx.onnx")));
        }
    }

    @Test
    void aCorruptedOrMissingSharedBinaryFailsLoadingNamingIt() throws IOException {
        compileGroup(false);
        Path bin = out.resolve("mlp1_ctx_shared.bin");
        byte[] bytes = Files.readAllBytes(bin);
        // the first entry is the first model's payload: its offset is in the first index record
        int first = (int) ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(12 + 32);
        bytes[first + 10] ^= 0x55;
        Files.write(bin, bytes);
        OrtexException e = assertThrows(OrtexException.class, () -> run(out.resolve("mlp1_ctx.onnx")));
        assertTrue(e.getMessage().contains("mlp1_ctx_shared.bin") && e.getMessage().contains("corrupted"),
                e.getMessage());
        Files.delete(bin);
        e = assertThrows(OrtexException.class, () -> run(out.resolve("mlp2_ctx.onnx")));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void aGroupSpansOneFolderOnly() throws IOException {
        SessionOptions share = EpContextTest.npu().config(SessionOptions.EP_SHARE_EP_CONTEXTS, "1");
        env.modelCompiler(share).inputModel(sources.resolve("mlp1.onnx")).compileToFile(out.resolve("a.onnx"));
        Path other = Files.createDirectories(dir.resolve("other"));
        OrtexException e = assertThrows(OrtexException.class, () -> env.modelCompiler(share)
                .inputModel(sources.resolve("mlp2.onnx")).compileToFile(other.resolve("b.onnx")));
        assertTrue(e.getMessage().contains("one folder"), e.getMessage());
        assertFalse(Files.exists(out.resolve("a_shared.bin")), "not written before the group stops");
        SessionOptions stop = EpContextTest.npu().config(SessionOptions.EP_STOP_SHARE_EP_CONTEXTS, "1");
        env.modelCompiler(stop).inputModel(sources.resolve("mlp3.onnx")).compileToFile(out.resolve("c.onnx"));
        assertTrue(Files.isRegularFile(out.resolve("a_shared.bin")));
        assertArrayEquals(run(sources.resolve("mlp3.onnx")), run(out.resolve("c.onnx")));
    }

    @Test
    void aGroupLeftOpenIsFinishedWhenTheEnvironmentClosesSoNoModelPointsAtAMissingBinary() throws IOException {
        SessionOptions share = EpContextTest.npu().config(SessionOptions.EP_SHARE_EP_CONTEXTS, "1");
        for (int i = 1; i <= 2; i++) {
            env.modelCompiler(share).inputModel(sources.resolve("mlp" + i + ".onnx"))
                    .compileToFile(out.resolve("mlp" + i + "_ctx.onnx"));
        }
        Path bin = out.resolve("mlp1_ctx_shared.bin");
        assertFalse(Files.exists(bin), "not written while the group is open");
        env.close();
        assertTrue(Files.isRegularFile(bin), "written when the environment closes");
        env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        for (int i = 1; i <= 2; i++) {
            assertArrayEquals(run(sources.resolve("mlp" + i + ".onnx")), run(out.resolve("mlp" + i + "_ctx.onnx")),
                    "compiled model " + i);
        }
    }
}
