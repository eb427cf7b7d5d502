package io.ortex.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The heap a steady-state all-MiniLM-L6-v2 run allocates, in a JVM of its own ({@code *IsolatedTest}) that first runs
 * two convolution models: what the JIT makes of the Vector API kernels depends on what ran before (a kernel compiled
 * with the profile of other models' epilogues once left its vector operations boxed, 11 GB per run), and a server
 * runs many models in one JVM.
 */
class HeapPerRunIsolatedTest {
    private static Environment ortex;

    @BeforeAll
    static void environment() {
        ortex = Environment.create();
    }

    @AfterAll
    static void close() {
        ortex.close();
    }

    @Test
    void anAllMiniLmRunAllocatesLessThanOneMegabyteOnTheHeap() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "this JVM does not count allocated bytes per thread");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        runAFewTimes("ppocr-v4-det", Map.of("x", RealModelsTest.randomFloats(new long[] {1, 3, 320, 320}, 1)), 12);
        runAFewTimes("oww-embedding", Map.of("input_1", RealModelsTest.randomFloats(new long[] {1, 76, 32, 1}, 2)),
                100);
        byte[] model = RealModelsTest.cached("all-minilm-l6-v2");
        long[] ids = new long[128];
        long[] mask = new long[128];
        for (int i = 0; i < 128; i++) {
            ids[i] = 1000 + i;
            mask[i] = 1;
        }
        Map<String, Tensor> inputs = Map.of("input_ids", Tensor.ofLongs(ids, 1, 128),
                "attention_mask", Tensor.ofLongs(mask, 1, 128),
                "token_type_ids", Tensor.ofLongs(new long[128], 1, 128));
        try (Session session = ortex.createSession(model, new SessionOptions().intraOpThreads(2))) {
            for (int i = 0; i < 15; i++) {
                session.run(inputs);
            }
            // the Vector API allocates until C2 has compiled the kernels, later on a loaded machine: measure windows
            // of runs until one is in steady state, for at most two minutes
            int runs = 5;
            long perRun = Long.MAX_VALUE;
            Map<String, Long> byThread = new java.util.TreeMap<>();
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (perRun >= 1 << 20 && System.nanoTime() < deadline) {
                Map<Long, Long> before = allocated(threads);
                for (int i = 0; i < runs; i++) {
                    session.run(inputs);
                }
                long total = 0;
                byThread.clear();
                for (Map.Entry<Long, Long> e : allocated(threads).entrySet()) {
                    // a thread of another test that starts or ends meanwhile is no part of these runs
                    Long was = before.get(e.getKey());
                    if (was != null && e.getValue() > was) {
                        total += e.getValue() - was;
                        byThread.put("thread " + e.getKey(), (e.getValue() - was) / runs);
                    }
                }
                perRun = total / runs;
            }
            assertTrue(perRun < 1 << 20, "a steady-state run allocated " + perRun + " bytes: " + byThread + " of "
                    + Thread.getAllStackTraces().keySet().stream().map(t -> t.getId() + "=" + t.getName()).toList());
        }
    }

    private static void runAFewTimes(String name, Map<String, Tensor> inputs, int runs) throws Exception {
        SessionOptions options = new SessionOptions().intraOpThreads(2);
        try (Session session = ortex.createSession(RealModelsTest.cached(name), options)) {
            for (int i = 0; i < runs; i++) {
                session.run(inputs);
            }
        }
    }

    /** Bytes allocated so far by each live thread (the caller and the intra-op threads among them), by id. */
    private static Map<Long, Long> allocated(com.sun.management.ThreadMXBean mx) {
        Map<Long, Long> bytes = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long b = mx.getThreadAllocatedBytes(t.getId());
            if (b >= 0) {
                bytes.put(t.getId(), b);
            }
        }
        return bytes;
    }
}
