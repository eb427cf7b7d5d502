package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.RunOptions;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Outputs written into tensors the caller pinned ({@link Session#run(Map, Map, RunOptions)}): straight from the kernel
 * where the CPU EP computes them, copied where they come from elsewhere, refused with the output named when the tensor
 * does not fit, and never touched by a later run.
 */
class PinnedOutputsTest {
    private static final int N = 256;

    private RuntimeEnvironment env;

    @BeforeEach
    void setUp() {
        env = new RuntimeEnvironment(Map.of(), List.of(CPU), List.of(new CpuEpFactory()));
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    /** {@code y = x W + b} with {@code x: float[n, N]} ({@code n} symbolic), {@code W: N x N}; node {@code mm}. */
    private static byte[] matMulAdd() {
        float[] w = random(N * N, 1);
        float[] b = random(N, 2);
        return TestModels.builder()
                .input("x", ElementType.FLOAT, -1, N)
                .floats("W", new long[] {N, N}, w)
                .floats("b", new long[] {N}, b)
                .node("MatMul", "mm", List.of("x", "W"), List.of("p"))
                .node("Add", "bias", List.of("p", "b"), List.of("y"))
                .output("y", ElementType.FLOAT, -1, N)
                .bytes();
    }

    private static float[] random(int n, long seed) {
        Random r = new Random(seed);
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = r.nextFloat() - 0.5f;
        }
        return f;
    }

    private static Map<String, Tensor> rows(int n, long seed) {
        return Map.of("x", Tensor.ofFloats(random(n * N, seed), n, N));
    }

    private static Map<String, Tensor> pin(String name, Tensor t) {
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put(name, t);
        return m;
    }

    @Test
    void theKernelWritesAPinnedOutputAndTheRunReturnsTheCallersTensor() {
        try (Session s = env.createSession(matMulAdd(), new SessionOptions().intraOpThreads(1))) {
            Tensor target = Tensor.zeros(ElementType.FLOAT, 64, N);
            for (long seed = 1; seed <= 3; seed++) {
                float[] expected = s.run(rows(64, seed)).get("y").floats();
                Map<String, Tensor> out = s.run(rows(64, seed), pin("y", target), new RunOptions());
                assertSame(target, out.get("y"));
                assertArrayEquals(expected, target.floats(), "run " + seed);
            }
        }
    }

    @Test
    void aPinnedRunAllocatesNoArrayForItsOutput() {
        var mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "this JVM does not count allocated bytes per thread");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        long outputBytes = (long) N * N * 4;
        try (Session s = env.createSession(matMulAdd(), new SessionOptions().intraOpThreads(1))) {
            Map<String, Tensor> in = rows(N, 5);
            Tensor target = Tensor.zeros(ElementType.FLOAT, N, N);
            Map<String, Tensor> pinned = pin("y", target);
            RunOptions options = new RunOptions();
            long thread = Thread.currentThread().getId();
            // the Vector API allocates until the JIT has compiled the kernels: measure windows until one is steady
            long perPinnedRun = Long.MAX_VALUE;
            long perRun = 0;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (perPinnedRun >= outputBytes / 4 && System.nanoTime() < deadline) {
                long before = threads.getThreadAllocatedBytes(thread);
                for (int i = 0; i < 10; i++) {
                    s.run(in, pinned, options);
                }
                long middle = threads.getThreadAllocatedBytes(thread);
                for (int i = 0; i < 10; i++) {
                    s.run(in);
                }
                perPinnedRun = (middle - before) / 10;
                perRun = (threads.getThreadAllocatedBytes(thread) - middle) / 10;
            }
            assertTrue(perRun >= outputBytes, "an ordinary run allocates its " + outputBytes + "-byte output: "
                    + perRun);
            assertTrue(perPinnedRun < outputBytes / 4, "a pinned run allocated " + perPinnedRun + " bytes");
        }
    }

    @Test
    void outputsComputedElsewhereAreCopiedIntoTheirTensors() {
        byte[] model = TestModels.builder()
                .input("x", ElementType.FLOAT, 2, 3)
                .node("Identity", "same", List.of("x"), List.of("copy"))
                .node("Relu", "relu", List.of("x"), List.of("pos"))
                .node("Neg", "neg", List.of("x"), List.of("minus"))
                .output("x", ElementType.FLOAT, 2, 3)
                .output("copy", ElementType.FLOAT, 2, 3)
                .output("pos", ElementType.FLOAT, 2, 3)
                .output("minus", ElementType.FLOAT, 2, 3)
                .bytes();
        float[] x = {1, -2, 3, -4, 5, -6};
        try (Session s = env.createSession(model, new SessionOptions())) {
            Map<String, Tensor> pinned = new LinkedHashMap<>();
            for (String name : List.of("minus", "x", "copy", "pos")) {
                pinned.put(name, Tensor.zeros(ElementType.FLOAT, 2, 3));
            }
            Map<String, Tensor> out = s.run(Map.of("x", Tensor.ofFloats(x, 2, 3)), pinned, new RunOptions());
            assertEquals(List.of("minus", "x", "copy", "pos"), new ArrayList<>(out.keySet()), "in the order given");
            assertArrayEquals(x, out.get("x").floats(), "a graph input passed through");
            assertArrayEquals(x, out.get("copy").floats(), "an alias of the input");
            assertArrayEquals(new float[] {1, 0, 3, 0, 5, 0}, out.get("pos").floats());
            assertArrayEquals(new float[] {-1, 2, -3, 4, -5, 6}, out.get("minus").floats());
            pinned.forEach((name, t) -> assertSame(t, out.get(name)));
        }
    }

    @Test
    void aLaterRunNeverWritesIntoATensorPinnedBefore() {
        try (Session s = env.createSession(matMulAdd(), new SessionOptions().intraOpThreads(2))) {
            Tensor target = Tensor.zeros(ElementType.FLOAT, 64, N);
            s.run(rows(64, 7), pin("y", target), new RunOptions());
            float[] kept = target.floats().clone();
            for (long seed = 8; seed < 14; seed++) {
                s.run(rows(64, seed));
                s.run(rows(64, seed), pin("y", Tensor.zeros(ElementType.FLOAT, 64, N)), new RunOptions());
            }
            assertArrayEquals(kept, target.floats());
        }
    }

    @Test
    void threadsPinningTheirOwnTensorsGetTheirOwnResults() throws Exception {
        try (Session s = env.createSession(matMulAdd(), new SessionOptions().intraOpThreads(2))) {
            int callers = 4;
            float[][] expected = new float[callers][];
            for (int c = 0; c < callers; c++) {
                expected[c] = s.run(rows(32, 100 + c)).get("y").floats();
            }
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int c = 0; c < callers; c++) {
                    int caller = c;
                    done.add(pool.submit(() -> {
                        Tensor target = Tensor.zeros(ElementType.FLOAT, 32, N);
                        Map<String, Tensor> in = rows(32, 100 + caller);
                        for (int i = 0; i < 50; i++) {
                            java.util.Arrays.fill(target.floats(), Float.NaN);
                            s.run(in, pin("y", target), new RunOptions());
                            assertArrayEquals(expected[caller], target.floats(), "caller " + caller + ", run " + i);
                        }
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void tensorsThatDoNotFitAreRefusedNamingTheOutput() {
        try (Session s = env.createSession(matMulAdd(), new SessionOptions())) {
            Map<String, Tensor> in = rows(4, 1);
            RunOptions o = new RunOptions();
            refused(s, in, Map.of(), "pin at least one output");
            refused(s, in, pin("z", Tensor.zeros(ElementType.FLOAT, 4, N)), "no output 'z'");
            refused(s, in, pin("y", null), "'y' is null");
            refused(s, in, pin("y", Tensor.zeros(ElementType.DOUBLE, 4, N)), "output 'y' is float32");
            refused(s, in, pin("y", Tensor.zeros(ElementType.FLOAT, 4, N + 1)), "output 'y' has shape");
            refused(s, in, pin("y", Tensor.zeros(ElementType.FLOAT, 4 * N)), "output 'y' has shape");
            ByteBuffer direct = ByteBuffer.allocateDirect(4 * N * 4).order(ByteOrder.LITTLE_ENDIAN);
            refused(s, in, pin("y", Tensor.ofBuffer(ElementType.FLOAT, new long[] {4, N}, direct, () -> { })),
                    "'y' is off-heap");
            refused(s, in, pin("y", in.get("x").reshape(4, N)), "shares its array with an input");
            // the declared shape allows 8 rows; the run makes 4
            refused(s, in, pin("y", Tensor.zeros(ElementType.FLOAT, 8, N)), "output 'y' came out as float32 4x256");
            Tensor target = Tensor.zeros(ElementType.FLOAT, 4, N);
            s.run(in, pin("y", target), o);
            assertArrayEquals(s.run(in).get("y").floats(), target.floats(), "the session still runs");
        }
    }

    @Test
    void oneTensorPinnedForTwoOutputsIsRefused() {
        byte[] model = TestModels.builder()
                .input("x", ElementType.FLOAT, 2, 3)
                .node("Relu", "relu", List.of("x"), List.of("pos"))
                .node("Neg", "neg", List.of("x"), List.of("minus"))
                .output("pos", ElementType.FLOAT, 2, 3)
                .output("minus", ElementType.FLOAT, 2, 3)
                .bytes();
        try (Session s = env.createSession(model, new SessionOptions())) {
            Tensor both = Tensor.zeros(ElementType.FLOAT, 2, 3);
            Map<String, Tensor> pinned = new LinkedHashMap<>();
            pinned.put("pos", both);
            pinned.put("minus", both);
            refused(s, Map.of("x", Tensor.ofFloats(new float[6], 2, 3)), pinned, "another pinned output");
        }
    }

    private static void refused(Session s, Map<String, Tensor> in, Map<String, Tensor> pinned, String culprit) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> s.run(in, pinned, new RunOptions()));
        assertTrue(e.getMessage().contains(culprit), "'" + culprit + "' not named: " + e.getMessage());
    }
}
