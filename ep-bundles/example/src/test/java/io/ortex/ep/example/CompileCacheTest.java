package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.proto.Onnx;
import io.ortex.runtime.internal.RuntimeEnvironment;
import io.ortex.runtime.internal.discovery.HardwareDiscovery;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compile cache ({@code ortex.compile_cache.dir}) with the example EP: a cold miss compiles and stores one
 * entry, a warm hit loads without compiling, the EP options and the EP version are part of the key, least recently
 * used entries are evicted, a corrupted entry is recompiled, and racing sessions both succeed.
 */
class CompileCacheTest {
    @TempDir
    Path dir;
    Path cache;
    Path source;
    Map<String, Tensor> feeds;
    float[] expected;

    @BeforeEach
    void setUp() throws IOException {
        cache = dir.resolve("cache");
        source = dir.resolve("mlp.onnx");
        Files.write(source, EpContextTest.mlp(8, 16, 4));
        feeds = Map.of("x", Tensors.random(new Random(5), 2, 8));
        try (Environment env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
                Session s = env.createSession(source, EpContextTest.npu())) {
            expected = s.run(feeds).get("y").floats();
        }
    }

    /** An environment with the CPU EP and a counting example EP of the given version. */
    static RuntimeEnvironment environment(CountingExampleFactory example, Map<String, String> config) {
        Map<String, String> c = new java.util.HashMap<>(config);
        c.put(Environment.ALLOW_VIRTUAL_DEVICES, "1");
        RuntimeEnvironment env = new RuntimeEnvironment(c, new HardwareDiscovery(c).discover());
        env.registerFactories("cpu", List.of(new CpuEpFactory()), false);
        env.registerFactories("example", List.of(example), true);
        return env;
    }

    SessionOptions cached() {
        return EpContextTest.npu().config(SessionOptions.COMPILE_CACHE_DIR, cache.toString());
    }

    float[] run(Environment env, SessionOptions o) {
        try (Session s = env.createSession(source, o)) {
            assertEquals(List.of(EpContextTest.EP, "CPUExecutionProvider"), s.executionProviders());
            return s.run(feeds).get("y").floats();
        }
    }

    List<Path> entries() throws IOException {
        try (var s = Files.list(cache)) {
            return s.filter(p -> p.toString().endsWith(".ortexc")).sorted().toList();
        }
    }

    @Test
    void coldMissStoresAnEntryAndAWarmHitLoadsWithoutCompiling() throws IOException {
        CountingExampleFactory ep = new CountingExampleFactory("0.1.0");
        try (RuntimeEnvironment env = environment(ep, Map.of())) {
            assertArrayEquals(expected, run(env, cached()));
            assertEquals(1, ep.compiled.get(), "the miss compiles the partition");
            assertEquals(1, entries().size(), "one entry, payloads embedded");
            List<String> all;
            try (var s = Files.list(cache)) {
                all = s.map(p -> p.getFileName().toString()).filter(n -> !n.equals("file-hashes")).toList();
            }
            assertEquals(1, all.size(), "no temporary file or context binary left: " + all);
            assertArrayEquals(expected, run(env, cached()));
            assertArrayEquals(expected, run(env, cached()));
            assertEquals(1, ep.compiled.get(), "hits do not compile");
            assertEquals(2, ep.loaded.get(), "hits load the EPContext node");
            assertTrue(Files.isRegularFile(dir.resolve("mlp.onnx")));
            assertFalse(Files.exists(dir.resolve("mlp_ctx.onnx")), "nothing is written beside the model");
        }
    }

    @Test
    void theEnvironmentEntryIsTheDefaultAndTheSessionOptionWins() throws IOException {
        CountingExampleFactory ep = new CountingExampleFactory("0.1.0");
        try (RuntimeEnvironment env = environment(ep, Map.of(SessionOptions.COMPILE_CACHE_DIR, cache.toString()))) {
            run(env, EpContextTest.npu());
            run(env, EpContextTest.npu());
            assertEquals(1, ep.compiled.get());
            assertEquals(1, entries().size());
            Path other = dir.resolve("other");
            run(env, EpContextTest.npu().config(SessionOptions.COMPILE_CACHE_DIR, other.toString()));
            assertEquals(2, ep.compiled.get());
            assertTrue(Files.isDirectory(other));
            run(env, EpContextTest.npu().config(SessionOptions.COMPILE_CACHE_DIR, ""));
            assertEquals(3, ep.compiled.get(), "an empty session option turns the cache off");
        }
    }

    @Test
    void epOptionsAndUnrelatedEntriesAndVersions() throws IOException {
        CountingExampleFactory ep = new CountingExampleFactory("0.1.0");
        try (RuntimeEnvironment env = environment(ep, Map.of())) {
            run(env, cached());
            run(env, cached().config("ep.exampleexecutionprovider.fuse", "0"));
            assertEquals(2, ep.compiled.get());
            assertEquals(2, entries().size(), "another EP option is another entry");
            run(env, cached().config("session.some_unrelated_key", "1"));
            assertEquals(2, ep.compiled.get(), "a session.* entry does not change the key");
        }
        CountingExampleFactory newer = new CountingExampleFactory("0.1.1");
        try (RuntimeEnvironment env = environment(newer, Map.of())) {
            assertArrayEquals(expected, run(env, cached()));
            assertEquals(1, newer.compiled.get(), "a new EP version misses");
            assertEquals(3, entries().size());
        }
        Path model2 = dir.resolve("mlp2.onnx");
        Files.write(model2, EpContextTest.mlp(8, 16, 4));
        CountingExampleFactory same = new CountingExampleFactory("0.1.1");
        try (RuntimeEnvironment env = environment(same, Map.of());
                Session s = env.createSession(model2, cached())) {
            assertEquals(0, same.compiled.get(), "the key is the model's content, not its path");
            assertArrayEquals(expected, s.run(feeds).get("y").floats());
        }
    }

    @Test
    void leastRecentlyUsedEntriesAreEvicted() throws IOException {
        CountingExampleFactory ep = new CountingExampleFactory("0.1.0");
        try (RuntimeEnvironment env = environment(ep, Map.of())) {
            run(env, cached().config("ep.exampleexecutionprovider.fuse", "1"));
            Path a = entries().get(0);
            long size = Files.size(a);
            run(env, cached().config("ep.exampleexecutionprovider.fuse", "0"));
            Path b = entries().stream().filter(p -> !p.equals(a)).findFirst().orElseThrow();
            long now = System.currentTimeMillis();
            Files.setLastModifiedTime(a, FileTime.fromMillis(now - 20_000));
            Files.setLastModifiedTime(b, FileTime.fromMillis(now - 10_000));
            run(env, cached().config("ep.exampleexecutionprovider.fuse", "1"));
            assertEquals(2, ep.compiled.get(), "a hit on a");
            assertTrue(Files.getLastModifiedTime(a).toMillis() >= now - 1000, "a hit refreshes the entry's time");
            // room for two entries: the third evicts b, now the least recently used
            SessionOptions small = cached().config(SessionOptions.COMPILE_CACHE_MAX_BYTES,
                    Long.toString(2 * size + size / 2)).config("ep.some.option", "x");
            run(env, small);
            assertEquals(3, ep.compiled.get());
            List<Path> left = entries();
            assertEquals(2, left.size(), left.toString());
            assertTrue(left.contains(a) && !left.contains(b), "b was evicted, a kept: " + left);
        }
    }

    /** An MLP on the NPU whose output the CPU EP scales by a table, an initializer the source keeps. */
    static byte[] mlpWithTable(float scale) {
        Random random = new Random(11);
        float[] table = new float[4096];
        java.util.Arrays.fill(table, scale);
        return new ModelBuilder()
                .input("x", -1, 8)
                .initializer("w1", Tensors.random(random, 8, 4096))
                .initializer("b1", Tensors.random(random, 4096))
                .initializer("table", Tensor.ofFloats(table, 4096))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h1"))
                .node("Add", "add1", List.of("h1", "b1"), List.of("h2"))
                .node("Div", "scale", List.of("h2", "table"), List.of("y"))
                .output("y").proto().toByteArray();
    }

    @Test
    void theEntryLeavesTheSourcesWeightsInTheSourceAndAChangedSourceIsAMiss() throws IOException {
        Files.write(source, mlpWithTable(2f));
        Files.setLastModifiedTime(source, java.nio.file.attribute.FileTime.fromMillis(
                System.currentTimeMillis() - 60_000));
        CountingExampleFactory ep = new CountingExampleFactory("0.1.0");
        try (RuntimeEnvironment env = environment(ep, Map.of())) {
            float[] cold = run(env, cached());
            Path entry = entries().get(0);
            Onnx.ModelProto stored = Onnx.ModelProto.parseFrom(java.util.Arrays.copyOf(Files.readAllBytes(entry),
                    (int) Files.size(entry) - 16));
            assertEquals(List.of(), stored.getGraph().getInitializerList().stream().map(Onnx.TensorProto::getName)
                    .toList(), "the table stays in the source; w1 and b1 are in the EP's payload");
            assertTrue(Files.size(entry) < Files.size(source), Files.size(entry) + " >= " + Files.size(source));
            assertArrayEquals(cold, run(env, cached()), "a hit takes the table from the source");
            assertEquals(1, ep.compiled.get());
            assertTrue(Files.isDirectory(cache.resolve("file-hashes")), "the model's hash is memoized");

            // new weights of the same size: a new modification time, so a new key
            Files.write(source, mlpWithTable(4f));
            float[] changed = run(env, cached());
            assertEquals(2, ep.compiled.get(), "the changed model is compiled, not taken from the old entry");
            for (int i = 0; i < cold.length; i++) {
                assertEquals(cold[i] / 2, changed[i], 1e-6f);
            }
        }
    }

    @Test
    void aCorruptedEntryIsDeletedAndRecompiled() throws IOException {
        CountingExampleFactory ep = new CountingExampleFactory("0.1.0");
        try (RuntimeEnvironment env = environment(ep, Map.of())) {
            run(env, cached());
            Path entry = entries().get(0);
            byte[] bytes = Files.readAllBytes(entry);
            bytes[bytes.length / 2] ^= 0x20;
            Files.write(entry, bytes);
            assertArrayEquals(expected, run(env, cached()));
            assertEquals(2, ep.compiled.get(), "the corrupted entry was recompiled");
            assertArrayEquals(expected, run(env, cached()));
            assertEquals(2, ep.compiled.get(), "and stored again whole");
            Files.write(entry, new byte[] {1, 2, 3});
            assertArrayEquals(expected, run(env, cached()));
            assertEquals(3, ep.compiled.get(), "a truncated entry too");
        }
    }

    @Test
    void sessionsRacingOnOneKeyBothSucceed() throws Exception {
        CountingExampleFactory ep = new CountingExampleFactory("0.1.0");
        int threads = 4;
        try (RuntimeEnvironment env = environment(ep, Map.of())) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<float[]>> results = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    Callable<float[]> task = () -> {
                        start.await();
                        return run(env, cached());
                    };
                    results.add(pool.submit(task));
                }
                for (Future<float[]> f : results) {
                    assertArrayEquals(expected, f.get());
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(1, entries().size());
            int before = ep.compiled.get();
            assertTrue(before >= 1 && before <= threads, "each racer compiled at most once: " + before);
            run(env, cached());
            assertEquals(before, ep.compiled.get(), "the entry the racers left is whole");
        }
    }
}
