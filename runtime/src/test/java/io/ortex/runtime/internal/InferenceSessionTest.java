package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.NotImplementedException;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.ModelReader;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InferenceSessionTest {

    private CountingEpFactory cpu;
    private RuntimeEnvironment env;

    @BeforeEach
    void setUp() {
        cpu = new CountingEpFactory(new CpuEpFactory());
        env = new RuntimeEnvironment(Map.of(), List.of(CPU), List.of(cpu));
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    private Session open(ModelBuilder model) {
        return env.createSession(model.bytes(), new SessionOptions());
    }

    private static Map<String, Tensor> feeds(float[] x, float[] y) {
        return Map.of("x", Tensor.ofFloats(x, 2, 3), "y", Tensor.ofFloats(y, 2, 3));
    }

    @Test
    void runsAddMulReluWithAnInitializer() {
        try (Session s = open(TestModels.addMulRelu())) {
            float[] x = {1, 2, 3, -4, -5, -6};
            float[] y = {2, 2, 2, -1, 1, -3};
            Map<String, Tensor> out = s.run(feeds(x, y));
            assertEquals(List.of("out"), List.copyOf(out.keySet()));
            Tensor t = out.get("out");
            assertEquals(ElementType.FLOAT, t.type());
            assertArrayEquals(new long[] {2, 3}, t.shape());
            assertArrayEquals(new float[] {4, 0, 7, 3, 0, 16.5f}, t.floats());
            assertArrayEquals(TestModels.addMulReluExpected(x, y), t.floats());
        }
    }

    @Test
    void runWithOneTensorFeedsTheOnlyInput() {
        ModelBuilder relu = TestModels.builder()
                .input("x", TestModels.FLOAT, -1, 2)
                .node("Relu", "relu", List.of("x"), List.of("y"))
                .output("y", TestModels.FLOAT, -1, 2);
        try (Session s = open(relu)) {
            Map<String, Tensor> out = s.run(Tensor.of(new float[][] {{-1, 2}, {3, -4}}));
            assertEquals(List.of("y"), List.copyOf(out.keySet()));
            assertArrayEquals(new long[] {2, 2}, out.get("y").shape());
            assertArrayEquals(new float[] {0, 2, 3, 0}, out.get("y").toFloatArray());
            assertThrows(InvalidArgumentException.class, () -> s.run(Tensor.of(new long[][] {{1, 2}})),
                    "the type is checked as with run(Map)");
        }
        try (Session s = open(TestModels.mul())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> s.run(Tensor.ofFloats(new float[6], 2, 3)));
            assertTrue(e.getMessage().contains("has 2 (x, y)") && e.getMessage().contains("run(Map)"),
                    e.getMessage());
        }
        ModelBuilder constant = TestModels.builder()
                .floats("w", new long[] {2}, 1, 2)
                .node("Identity", "id", List.of("w"), List.of("out"))
                .output("out", TestModels.FLOAT, 2);
        try (Session s = open(constant)) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> s.run(Tensor.ofFloats(new float[2], 2)));
            assertTrue(e.getMessage().contains("has none: call run(Map.of())"), e.getMessage());
            assertArrayEquals(new float[] {1, 2}, s.run(Map.of()).get("out").floats());
        }
    }

    @Test
    void assignmentListsEveryNodeWithItsEpAndOp() {
        try (Session s = open(TestModels.addMulRelu())) {
            List<NodeAssignment> a = s.assignment();
            assertEquals(List.of("add", "mul", "relu"), a.stream().map(NodeAssignment::node).toList());
            assertEquals(List.of("Add", "Mul", "Relu"), a.stream().map(NodeAssignment::opType).toList());
            assertTrue(a.stream().allMatch(n -> n.ep().equals("CPUExecutionProvider")), a.toString());
            assertEquals(3, a.stream().map(NodeAssignment::partition).distinct().count(), a.toString());
            assertEquals(List.of("CPUExecutionProvider"), s.executionProviders());
        }
    }

    @Test
    void inputsAndOutputsAreTheDeclaredOnes() {
        ModelBuilder m = TestModels.builder()
                .input("x", TestModels.FLOAT, -1, 3)
                .input("b", TestModels.FLOAT, 3)
                .floats("b", new long[] {3}, 1, 2, 3)
                .node("Add", "add", List.of("x", "b"), List.of("out"))
                .output("out", TestModels.FLOAT, -1, 3);
        try (Session s = open(m)) {
            List<TensorInfo> in = s.inputs();
            assertEquals(1, in.size(), "an initializer that is also an input is optional: " + in);
            assertEquals("x", in.get(0).name());
            assertEquals(ElementType.FLOAT, in.get(0).type());
            assertArrayEquals(new long[] {-1, 3}, in.get(0).dims());
            assertEquals(List.of("N", ""), in.get(0).dimNames());
            assertEquals(1, s.outputs().size());
            assertEquals("out", s.outputs().get(0).name());
            assertArrayEquals(new long[] {-1, 3}, s.outputs().get(0).dims());
            Tensor x = Tensor.ofFloats(new float[] {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}, 4, 3);
            assertArrayEquals(new float[] {2, 3, 4, 3, 4, 5, 4, 5, 6, 5, 6, 7},
                    s.run(Map.of("x", x)).get("out").floats(), "a symbolic dimension takes any size");
            Tensor b = Tensor.ofFloats(new float[] {10, 20, 30}, 3);
            assertArrayEquals(new float[] {11, 21, 31, 12, 22, 32, 13, 23, 33, 14, 24, 34},
                    s.run(Map.of("x", x, "b", b)).get("out").floats(), 0f, "a fed initializer overrides its value");
        }
    }

    private static void assertRefused(Session s, Map<String, Tensor> feeds, String... words) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> s.run(feeds));
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), "'" + w + "' not in: " + e.getMessage());
        }
    }

    @Test
    void badFeedsThrowInvalidArgumentNamingTheInput() {
        try (Session s = open(TestModels.addMulRelu())) {
            Tensor good = Tensor.ofFloats(new float[6], 2, 3);
            assertRefused(s, Map.of("x", good), "'y'", "missing");
            Map<String, Tensor> unknown = new HashMap<>(Map.of("x", good, "y", good));
            unknown.put("z", good);
            assertRefused(s, unknown, "'z'");
            assertRefused(s, Map.of("x", good, "y", Tensor.ofDoubles(new double[6], 2, 3)), "'y'", "float32",
                    "float64");
            assertRefused(s, Map.of("x", Tensor.ofFloats(new float[6], 6), "y", good), "'x'", "rank 2");
            assertRefused(s, Map.of("x", good, "y", Tensor.ofFloats(new float[6], 3, 2)), "'y'", "dimension 0");
            Map<String, Tensor> nullValue = new HashMap<>(Map.of("x", good));
            nullValue.put("y", null);
            assertRefused(s, nullValue, "'y'");
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> s.run(Map.of("x", good, "y", good), List.of("nope")));
            assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
        }
    }

    @Test
    void anOpNoEpSupportsFailsAtCreationNamingNodeAndOp() {
        ModelBuilder m = TestModels.builder()
                .input("x", TestModels.FLOAT, 2)
                .node("Relu", "first", List.of("x"), List.of("r"))
                .node("FancyOp", "the_fancy_one", List.of("r"), List.of("out"))
                .output("out", TestModels.FLOAT, 2);
        NotImplementedException e = assertThrows(NotImplementedException.class, () -> open(m));
        assertTrue(e.getMessage().contains("the_fancy_one") && e.getMessage().contains("FancyOp"), e.getMessage());
        assertEquals(1, cpu.created.get());
        assertEquals(1, cpu.released.get(), "a failed creation releases the EPs it created");
    }

    @Test
    void concurrentRunsEachGetTheirOwnResult() throws Exception {
        int threads = 8;
        int runs = 200;
        try (Session s = open(TestModels.addMulRelu())) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Integer>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long seed = t;
                    done.add(pool.submit(() -> {
                        SplittableRandom r = new SplittableRandom(seed);
                        start.await();
                        int ok = 0;
                        for (int i = 0; i < runs; i++) {
                            float[] x = new float[6];
                            float[] y = new float[6];
                            for (int k = 0; k < 6; k++) {
                                x[k] = (float) r.nextDouble(-10, 10);
                                y[k] = (float) r.nextDouble(-10, 10);
                            }
                            float[] got = s.run(feeds(x, y)).get("out").floats();
                            float[] want = TestModels.addMulReluExpected(x, y);
                            if (!Arrays.equals(want, got)) {
                                throw new AssertionError("thread " + seed + " run " + i + ": want "
                                        + Arrays.toString(want) + ", got " + Arrays.toString(got));
                            }
                            ok++;
                        }
                        return ok;
                    }));
                }
                start.countDown();
                for (Future<Integer> f : done) {
                    assertEquals(runs, f.get(60, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void closeReleasesTheEpAndLaterRunsThrow() {
        Session s = open(TestModels.addMulRelu());
        assertEquals(1, cpu.created.get());
        assertEquals(0, cpu.released.get());
        Map<String, Tensor> feeds = feeds(new float[6], new float[6]);
        s.run(feeds);
        s.close();
        assertEquals(1, cpu.released.get());
        OrtexException e = assertThrows(OrtexException.class, () -> s.run(feeds));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        s.close();
        assertEquals(1, cpu.released.get(), "close is idempotent");
    }

    @Test
    void thePlanFreesEachIntermediateAfterItsLastReader() {
        ModelBuilder m = TestModels.addMulRelu()
                .node("Relu", "dead_end", List.of("s"), List.of("unused"));
        try (InferenceSession s = InferenceSession.create(ModelReader.read(m.bytes(), null), new SessionOptions()
                .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL),
                List.of(new EpBinding(cpu, List.of(io.ortex.api.spi.SupportedDevice.of(CPU)))), x -> { })) {
            List<ExecutionPlan.Step> steps = s.plan().steps();
            Map<String, Set<String>> freed = new HashMap<>();
            List<String> order = new ArrayList<>();
            for (ExecutionPlan.Step step : steps) {
                String node = s.assignment().stream().filter(a -> a.partition().equals(step.name()))
                        .findFirst().orElseThrow().node();
                order.add(node);
                freed.put(node, Set.of(step.freeAfter()));
            }
            assertEquals(4, steps.size());
            assertEquals(Set.of("x"), freed.get("add"), "the initializer b is never freed");
            assertTrue(order.indexOf("add") < order.indexOf("mul") && order.indexOf("mul") < order.indexOf("relu"));
            int lastReaderOfS = Math.max(order.indexOf("mul"), order.indexOf("dead_end"));
            String lastOfS = order.get(lastReaderOfS);
            assertTrue(freed.get(lastOfS).contains("s"), freed.toString());
            ExecutionPlan.Step deadEnd = steps.get(order.indexOf("dead_end"));
            assertEquals(0, deadEnd.outputs().length, "an output nobody reads is not even returned");
            assertTrue(freed.get("relu").contains("p"), freed.toString());
            assertTrue(freed.get("mul").contains("y"), freed.toString());
            freed.values().forEach(f -> assertTrue(!f.contains("out") && !f.contains("b"), freed.toString()));
            float[] x = {1, 2, 3, 4, 5, 6};
            float[] y = {1, 1, 1, 1, 1, 1};
            assertArrayEquals(TestModels.addMulReluExpected(x, y), s.run(feeds(x, y)).get("out").floats());
        }
    }

    @Test
    void executeRemovesFreedValuesFromTheTable() {
        try (InferenceSession s = InferenceSession.create(ModelReader.read(TestModels.addMulRelu().bytes(), null),
                new SessionOptions(), List.of(new EpBinding(cpu,
                        List.of(io.ortex.api.spi.SupportedDevice.of(CPU)))), x -> { });
             IntraOpPool pool = new IntraOpPool(1)) {
            ExecutionPlan plan = s.plan();
            Tensor[] values = new Tensor[plan.slotCount()];
            feeds(new float[6], new float[6]).forEach((name, t) -> values[plan.slot(name)] = t);
            values[plan.slot("b")] = Tensor.ofFloats(new float[] {1, -2, 0.5f}, 3);
            plan.execute(values, new ExecutionPlan.Run(new KernelContext() {
                @Override
                public int intraOpThreads() {
                    return 1;
                }

                @Override
                public void parallelFor(int count, int minChunk, RangeBody body) {
                    pool.parallelFor(count, minChunk, body);
                }
            }, new RunArena(), null), null);
            Set<Integer> left = new HashSet<>();
            for (int i = 0; i < values.length; i++) {
                if (values[i] != null) {
                    left.add(i);
                }
            }
            assertEquals(Set.of(plan.slot("b"), plan.slot("out")), left);
        }
    }

    /**
     * A session from a file leaves its large weight in the file; constant folding (Transpose of the weight) still
     * reads it, and the session keeps running after the path is deleted.
     */
    @Test
    void foldsAWeightLeftInTheModelFile(@TempDir Path folder) throws IOException {
        int k = 160;
        float[] w = new float[k * k];
        for (int i = 0; i < w.length; i++) {
            w[i] = (i % 7) - 3;
        }
        Path file = Files.write(folder.resolve("t.onnx"), TestModels.builder()
                .input("x", ElementType.FLOAT, 1, k)
                .floats("w", new long[] {k, k}, w)
                .node("Transpose", "t", List.of("w"), List.of("wt"))
                .node("MatMul", "mm", List.of("x", "wt"), List.of("y"))
                .output("y", ElementType.FLOAT, 1, k)
                .bytes());
        float[] x = new float[k];
        for (int i = 0; i < k; i++) {
            x[i] = i % 5;
        }
        float[] expected = new float[k];
        for (int j = 0; j < k; j++) {
            for (int i = 0; i < k; i++) {
                expected[j] += x[i] * w[j * k + i];
            }
        }
        try (Session s = env.createSession(file, new SessionOptions())) {
            Files.delete(file);
            for (int run = 0; run < 2; run++) {
                float[] y = s.run(Map.of("x", Tensor.ofFloats(x, 1, k))).get("y").floats();
                assertArrayEquals(expected, y, 1e-3f);
            }
        }
    }
}
