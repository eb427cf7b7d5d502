package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.CompileFlag;
import io.ortex.api.CompileResult;
import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.ModelCompiler;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compile API with the example EP: file, bytes and stream outputs, embed modes, the two flags, progress, and
 * failures that leave nothing behind.
 */
class ModelCompilerTest {
    @TempDir
    Path dir;
    Environment env;
    Path source;
    Map<String, Tensor> feeds;
    float[] expected;

    @BeforeEach
    void setUp() throws IOException {
        env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        source = dir.resolve("mlp.onnx");
        Files.write(source, EpContextTest.mlp(8, 16, 4));
        feeds = Map.of("x", Tensors.random(new Random(5), 2, 8));
        try (Session s = env.createSession(source, EpContextTest.npu())) {
            expected = s.run(feeds).get("y").floats();
        }
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    private ModelCompiler compiler() {
        return env.modelCompiler(EpContextTest.npu());
    }

    private float[] run(Path model) {
        try (Session s = env.createSession(model, EpContextTest.npu())) {
            return s.run(feeds).get("y").floats();
        }
    }

    private List<String> files() throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void fileToFileWithBinariesAndProgress() {
        List<int[]> progress = new ArrayList<>();
        Path out = dir.resolve("out.onnx");
        CompileResult r = compiler().inputModel(source).progressListener((d, t) -> progress.add(new int[] {d, t}))
                .flags(Set.of(CompileFlag.ERROR_IF_NO_NODES_COMPILED)).compileToFile(out);
        assertEquals(Map.of(EpContextTest.EP, 1), r.epContextNodes());
        assertEquals(List.of(dir.resolve("out_" + EpContextTest.EP + ".bin"), out), r.files());
        assertArrayEquals(expected, run(out));
        assertEquals(0, progress.get(0)[0]);
        int[] last = progress.get(progress.size() - 1);
        assertEquals(last[1], last[0], "all partitions done at the end");
        assertEquals(2, last[1], "the example EP's partition and the CPU EP's Softmax");
    }

    @Test
    void defaultOutputAndOverwriteUnlessFlagged() throws IOException {
        compiler().inputModel(source).embedMode(true).compileToFile();
        Path out = dir.resolve("mlp_ctx.onnx");
        byte[] first = Files.readAllBytes(out);
        Files.write(out, new byte[] {1, 2, 3});
        compiler().inputModel(source).embedMode(true).compileToFile();
        assertArrayEquals(first, Files.readAllBytes(out), "without the flag an existing file is overwritten");
        Files.write(out, new byte[] {1, 2, 3});
        OrtexException e = assertThrows(OrtexException.class, () -> compiler().inputModel(source).embedMode(true)
                .flags(Set.of(CompileFlag.ERROR_IF_OUTPUT_FILE_EXISTS)).compileToFile());
        assertTrue(e.getMessage().contains("exists already"), e.getMessage());
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(out));
    }

    @Test
    void bytesToBytesAndToStreams() throws IOException {
        byte[] model = Files.readAllBytes(source);
        byte[] compiled = compiler().inputModel(model).embedMode(true).compileToBytes();
        try (Session s = env.createSession(compiled, EpContextTest.npu())) {
            assertArrayEquals(expected, s.run(feeds).get("y").floats());
        }
        List<Integer> sizes = new ArrayList<>();
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        compiler().inputModel(model).embedMode(true).compileToStream((ByteBuffer chunk) -> {
            sizes.add(chunk.remaining());
            byte[] b = new byte[chunk.remaining()];
            chunk.get(b);
            joined.writeBytes(b);
        });
        assertArrayEquals(compiled, joined.toByteArray());
        assertTrue(sizes.stream().allMatch(n -> n <= 1 << 16), sizes.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        compiler().inputModel(source).embedMode(true).compileToStream(out);
        Path p = dir.resolve("streamed.onnx");
        Files.write(p, out.toByteArray());
        assertArrayEquals(expected, run(p));
        assertEquals(List.of("mlp.onnx", "streamed.onnx"), files(), "embedded payloads write no other file");
    }

    @Test
    void bytesWithSeparateBinariesNeedTheContextFilePath() throws IOException {
        OrtexException e = assertThrows(OrtexException.class,
                () -> compiler().inputModel(source).compileToBytes());
        assertTrue(e.getMessage().contains(SessionOptions.EP_CONTEXT_FILE_PATH), e.getMessage());
        Path target = dir.resolve("mem.onnx");
        byte[] compiled = env.modelCompiler(EpContextTest.npu()
                        .config(SessionOptions.EP_CONTEXT_FILE_PATH, target.toString()))
                .inputModel(source).compileToBytes();
        Files.write(target, compiled);
        assertArrayEquals(expected, run(target));
    }

    @Test
    void noCompiledNodesIsAnErrorOnlyWithTheFlag() throws IOException {
        SessionOptions cpu = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_CPU);
        Path out = dir.resolve("cpu_ctx.onnx");
        OrtexException e = assertThrows(OrtexException.class, () -> env.modelCompiler(cpu).inputModel(source)
                .flags(Set.of(CompileFlag.ERROR_IF_NO_NODES_COMPILED)).compileToFile(out));
        assertTrue(e.getMessage().contains("Unable to compile any nodes"), e.getMessage());
        assertEquals(List.of("mlp.onnx"), files(), "a failed compile leaves nothing behind");
        CompileResult r = env.modelCompiler(cpu).inputModel(source).compileToFile(out);
        assertEquals(0, r.totalEpContextNodes());
        assertArrayEquals(expected, run(out), 1e-6f);
    }

    @Test
    void compilingACompiledModelFailsAndWritesNothing() throws IOException {
        Path once = dir.resolve("once.onnx");
        compiler().inputModel(source).embedMode(true).compileToFile(once);
        OrtexException e = assertThrows(OrtexException.class,
                () -> compiler().inputModel(once).compileToFile(dir.resolve("twice.onnx")));
        assertTrue(e.getMessage().contains("already compiled"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("twice.onnx")));
        assertThrows(OrtexException.class, () -> compiler().compileToFile(dir.resolve("x.onnx")), "no input");
        assertThrows(OrtexException.class, () -> compiler().inputModel(new byte[0]));
        assertThrows(OrtexException.class, () -> compiler().inputModel(Files.readAllBytes(source)).compileToFile());
        assertThrows(OrtexException.class, () -> compiler().inputModel(source).compileToFile(dir));
    }

    @Test
    void parallelCompilesToOneNewPathWithErrorIfOutputExistsHaveOneWinner() throws Exception {
        int racers = 4;
        Path out = dir.resolve("raced.onnx");
        // every compile waits here once it has passed the early existence check, so all race for the final moves
        java.util.concurrent.CyclicBarrier started = new java.util.concurrent.CyclicBarrier(racers);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(racers);
        try {
            List<java.util.concurrent.Future<CompileResult>> results = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                results.add(pool.submit(() -> compiler().inputModel(source)
                        .flags(Set.of(CompileFlag.ERROR_IF_OUTPUT_FILE_EXISTS))
                        .progressListener((done, total) -> {
                            if (done == 0) {
                                try {
                                    started.await(30, java.util.concurrent.TimeUnit.SECONDS);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            }
                        }).compileToFile(out)));
            }
            int won = 0;
            for (java.util.concurrent.Future<CompileResult> f : results) {
                try {
                    f.get(60, java.util.concurrent.TimeUnit.SECONDS);
                    won++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertTrue(e.getCause() instanceof OrtexException, e.getCause().toString());
                    assertTrue(e.getCause().getMessage().contains("exists already"), e.getCause().getMessage());
                }
            }
            assertEquals(1, won, "exactly one compile claims the new output");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of("mlp.onnx", "raced.onnx", "raced_" + EpContextTest.EP + ".bin"), files());
        assertArrayEquals(expected, run(out));
    }
}
