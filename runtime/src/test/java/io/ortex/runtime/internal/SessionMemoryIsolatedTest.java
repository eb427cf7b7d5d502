package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a session holds on the heap for its weights, in a JVM of its own ({@code *IsolatedTest}) so that no other test
 * allocates while the heap is measured: a fused MatMul+Add holds its weight packed once, and no decoded or second
 * packed copy; the model's own bytes stay in memory only when the model came as bytes, not from a file.
 */
class SessionMemoryIsolatedTest {
    private static final int K = 2048;
    private static final int N = 2048;
    private static final long WEIGHT_BYTES = 4L * K * N;

    @TempDir
    Path folder;

    private static byte[] matMulAdd() {
        return TestModels.builder()
                .input("x", ElementType.FLOAT, 4, K)
                .floats("w", new long[] {K, N}, new float[K * N])
                .floats("b", new long[] {N}, new float[N])
                .node("MatMul", "mm", List.of("x", "w"), List.of("p"))
                .node("Add", "add", List.of("p", "b"), List.of("y"))
                .output("y", ElementType.FLOAT, 4, N)
                .bytes();
    }

    @Test
    void aSessionFromAFileHoldsItsFusedWeightOnceAndLeavesTheModelBytesInTheFile() throws IOException {
        Path file = Files.write(folder.resolve("matmul.onnx"), matMulAdd());
        long held = heldAfterOneRun(env -> env.createSession(file, new SessionOptions().intraOpThreads(1)));
        // the packed weight and some slack; the model's bytes kept in memory would make it two copies
        assertTrue(held < 1.7 * WEIGHT_BYTES, "the session holds " + held / 1_000_000 + " MB for a "
                + WEIGHT_BYTES / 1_000_000 + " MB weight");
    }

    @Test
    void creatingASessionFromAFileNeverReadsTheModelBytesOntoTheHeap() throws IOException {
        Path file = Files.write(folder.resolve("matmul.onnx"), matMulAdd());
        // warm up the classes and code paths, so that only the model's own allocations are counted below
        try (Environment env = Environment.create(); Session s = env.createSession(file, new SessionOptions())) {
            s.inputs();
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (Environment env = Environment.create()) {
            long before = threads.getCurrentThreadAllocatedBytes();
            try (Session s = env.createSession(file, new SessionOptions().intraOpThreads(1))) {
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                // the weight decoded once and packed once; the bytes parsed onto the heap (twice, as protobuf
                // copies them) or a decoded copy made to match the fusion would make it four or more
                assertTrue(allocated > WEIGHT_BYTES && allocated < 2.6 * WEIGHT_BYTES, "creating the session "
                        + "allocated " + allocated / 1_000_000 + " MB for a " + WEIGHT_BYTES / 1_000_000
                        + " MB weight");
            }
        }
    }

    @Test
    void aFusedMatMulHoldsItsWeightOnceBesideTheModelBytes() {
        byte[] model = matMulAdd();
        long held = heldAfterOneRun(env -> env.createSession(model, new SessionOptions().intraOpThreads(1)));
        // the model's bytes (kept to compile again when an EP goes) and the packed weight: two copies and some
        // slack (G1 counts a large array's last region whole); a decoded copy the fusion matched on, or the unfused
        // MatMul's own packed copy, would make it four or more
        assertTrue(held < 3.3 * WEIGHT_BYTES, "the session holds " + held / 1_000_000 + " MB for a "
                + WEIGHT_BYTES / 1_000_000 + " MB weight");
    }

    /** The heap a session holds once it has run, in a fresh environment. */
    private static long heldAfterOneRun(Function<Environment, Session> open) {
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(new float[4 * K], 4, K));
        try (Environment env = Environment.create()) {
            long before = usedAfterGc();
            try (Session s = open.apply(env)) {
                s.run(feeds);
                return usedAfterGc() - before;
            }
        }
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        // a few collections: the first may leave garbage a concurrent phase has not reclaimed yet
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }
}
