package io.ortex.runtime.internal;

import static io.ortex.api.ElementType.BOOL;
import static io.ortex.api.ElementType.FLOAT;
import static io.ortex.api.ElementType.INT64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelMemoryType;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.testing.Attributes;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * An EP that registers per-op kernels ({@link KernelTestEp}) instead of compiling partitions, through the real
 * runtime: kernels picked by opset range and input type, the session failing naming the node when none fits, nodes
 * claimed alone mixed with CPU nodes, outputs written into a dead input's buffer, If/Loop/Scan bodies on the EP's
 * kernels, pre-packed weights shared between sessions, and concurrent runs; every output compared with the CPU EP's.
 */
class KernelRegistryTest {
    private static final Set<String> ALL = Set.of("Add", "Relu", "MatMul", "If", "Loop", "Scan");

    private final KernelTestEp.Stats stats = new KernelTestEp.Stats();

    private RuntimeEnvironment environment(Set<String> ops, Set<String> forced) {
        return new RuntimeEnvironment(Map.of(), List.of(TestDevices.CPU), List.of(new CpuEpFactory(),
                new CountingEpFactory(KernelTestEp.NAME, () -> new KernelTestEp(stats, ops, forced))));
    }

    private static SessionOptions onKernelEp(RuntimeEnvironment env) {
        return new SessionOptions().appendExecutionProvider(
                LibraryRegistrationTest.devicesOf(env, KernelTestEp.NAME), Map.of());
    }

    private static String epOf(Session s, String node) {
        return s.assignment().stream().filter(a -> a.node().equals(node)).map(NodeAssignment::ep).findFirst()
                .orElseThrow(() -> new AssertionError("no node " + node + " in " + s.assignment()));
    }

    // ---- models ----

    private static ModelBuilder add(int opset, io.ortex.api.ElementType type) {
        return new ModelBuilder().opset(opset).input("x", type, 2, 3).input("y", type, 2, 3)
                .node("Add", "add", List.of("x", "y"), List.of("out")).output("out", type, 2, 3);
    }

    /** {@code out = Relu((x W + b) * s)}, x [4, 8], W [8, 16]; MatMul, Add, Relu for the EP, Mul for the CPU EP. */
    private static ModelBuilder mixed(boolean matMulIsOutput) {
        Random r = new Random(7);
        float[] w = new float[8 * 16];
        float[] b = new float[16];
        float[] s = new float[16];
        for (int i = 0; i < w.length; i++) {
            w[i] = r.nextFloat() - 0.5f;
        }
        for (int i = 0; i < 16; i++) {
            b[i] = r.nextFloat() - 0.5f;
            s[i] = r.nextFloat() * 2 - 1;
        }
        ModelBuilder m = new ModelBuilder().opset(17).input("x", FLOAT, 4, 8)
                .floats("W", new long[] {8, 16}, w).floats("b", new long[] {16}, b)
                .floats("s", new long[] {16}, s)
                .node("MatMul", "matmul", List.of("x", "W"), List.of("mm"))
                .node("Add", "add", List.of("mm", "b"), List.of("biased"))
                .node("Mul", "mul", List.of("biased", "s"), List.of("scaled"))
                .node("Relu", "relu", List.of("scaled"), List.of("out"))
                .output("out", FLOAT, 4, 16);
        return matMulIsOutput ? m.output("mm", FLOAT, 4, 16) : m;
    }

    private static Map<String, Tensor> mixedFeeds(long seed) {
        Random r = new Random(seed);
        float[] x = new float[32];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextFloat() * 4 - 2;
        }
        return Map.of("x", Tensor.ofFloats(x, 4, 8));
    }

    private static void assertClose(float[] want, float[] got) {
        assertEquals(want.length, got.length);
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], 1e-5f * Math.max(1f, Math.abs(want[i])), "element " + i);
        }
    }

    // ---- kernels picked by opset and type ----

    @Test
    void theKernelIsPickedByTheModelsOpsetImport() {
        try (RuntimeEnvironment env = environment(ALL, Set.of())) {
            Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3),
                    "y", Tensor.ofFloats(new float[] {6, 5, 4, 3, 2, 1}, 2, 3));
            for (int opset : new int[] {12, 13}) {
                try (Session s = env.createSession(add(opset, FLOAT).bytes(), onKernelEp(env));
                     Session cpu = env.createSession(add(opset, FLOAT).bytes(), new SessionOptions())) {
                    assertEquals(KernelTestEp.NAME, epOf(s, "add"));
                    assertArrayEquals(cpu.run(feeds).get("out").floats(), s.run(feeds).get("out").floats());
                }
            }
            assertEquals(1, stats.calls("Add@7-12"));
            assertEquals(1, stats.calls("Add@13+"));
        }
    }

    @Test
    void aNodeOfATypeNoKernelTakesIsLeftToTheCpuEp() {
        try (RuntimeEnvironment env = environment(ALL, Set.of());
             Session s = env.createSession(add(13, INT64).bytes(), onKernelEp(env))) {
            assertEquals(RuntimeEnvironment.CPU_EP, epOf(s, "add"));
            Tensor x = Tensor.ofLongs(new long[] {1, 2, 3, 4, 5, 6}, 2, 3);
            assertArrayEquals(new long[] {2, 4, 6, 8, 10, 12}, s.run(Map.of("x", x, "y", x)).get("out").longs());
        }
    }

    @Test
    void aClaimedNodeWithoutAMatchingKernelFailsTheSessionNamingIt() {
        try (RuntimeEnvironment env = environment(ALL, Set.of("Add", "Mul"))) {
            OrtexException type = assertThrows(OrtexException.class,
                    () -> env.createSession(add(13, INT64).bytes(), onKernelEp(env)).close());
            assertTrue(type.getMessage().contains("'add'") && type.getMessage().contains("is int64")
                    && type.getMessage().contains("KernelEP"), type.getMessage());
            OrtexException version = assertThrows(OrtexException.class,
                    () -> env.createSession(add(6, FLOAT).bytes(), onKernelEp(env)).close());
            assertTrue(version.getMessage().contains("'add'") && version.getMessage().contains("[7-12, 13+]")
                    && version.getMessage().contains("not opset 6"), version.getMessage());
            OrtexException op = assertThrows(OrtexException.class, () -> env.createSession(new ModelBuilder()
                    .opset(17).input("x", FLOAT, 2).node("Mul", "twice", List.of("x", "x"), List.of("y"))
                    .output("y", FLOAT, 2).bytes(), onKernelEp(env)).close());
            assertTrue(op.getMessage().contains("'twice'") && op.getMessage().contains("no kernel of that op"),
                    op.getMessage());
        }
    }

    // ---- single nodes mixed with CPU nodes, in place ----

    @Test
    void singleNodesRunBesideCpuNodesAndWriteIntoDeadInputs() {
        try (RuntimeEnvironment env = environment(ALL, Set.of());
             Session s = env.createSession(mixed(false).bytes(), onKernelEp(env));
             Session cpu = env.createSession(mixed(false).bytes(), new SessionOptions())) {
            assertEquals(KernelTestEp.NAME, epOf(s, "matmul"));
            assertEquals(KernelTestEp.NAME, epOf(s, "add"));
            assertEquals(RuntimeEnvironment.CPU_EP, epOf(s, "mul"));
            assertEquals(KernelTestEp.NAME, epOf(s, "relu"));
            assertEquals(4, s.assignment().stream().map(NodeAssignment::partition).distinct().count());
            for (int run = 0; run < 3; run++) {
                Map<String, Tensor> feeds = mixedFeeds(run);
                assertClose(cpu.run(feeds).get("out").floats(), s.run(feeds).get("out").floats());
            }
            // Add writes into MatMul's output, Relu into Mul's: both read by nobody after them
            assertEquals(6, stats.inplace.get());
            assertEquals(3, stats.calls("MatMul"));
        }
    }

    @Test
    void anInputReadLaterOrReturnedIsNeverOverwritten() {
        try (RuntimeEnvironment env = environment(ALL, Set.of());
             Session s = env.createSession(mixed(true).bytes(), onKernelEp(env));
             Session cpu = env.createSession(mixed(true).bytes(), new SessionOptions())) {
            Map<String, Tensor> feeds = mixedFeeds(3);
            Map<String, Tensor> want = cpu.run(feeds);
            Map<String, Tensor> got = s.run(feeds);
            assertClose(want.get("mm").floats(), got.get("mm").floats());
            assertClose(want.get("out").floats(), got.get("out").floats());
            assertEquals(1, stats.inplace.get(), "only Relu may reuse its input: mm is a graph output");
        }
        KernelTestEp.Stats own = new KernelTestEp.Stats();
        float[] c = {1, 2, 3, 4, 5, 6, 7, 8};
        ModelBuilder reused = new ModelBuilder().opset(17).input("x", FLOAT, 8, 8).input("y", FLOAT, 8, 8)
                .floats("c", new long[] {8}, c)
                .node("Mul", "mul", List.of("x", "y"), List.of("p"))
                .node("Add", "add_c", List.of("p", "c"), List.of("q"))
                .node("Add", "add_twice", List.of("q", "q"), List.of("r"))
                .node("Add", "add_p", List.of("r", "p"), List.of("out")).output("out", FLOAT, 8, 8);
        RuntimeEnvironment second = new RuntimeEnvironment(Map.of(), List.of(TestDevices.CPU),
                List.of(new CpuEpFactory(), new CountingEpFactory(KernelTestEp.NAME,
                        () -> new KernelTestEp(own, ALL, Set.of()))));
        try (RuntimeEnvironment env = second; Session s = env.createSession(reused.bytes(), onKernelEp(env))) {
            float[] x = new float[64];
            float[] y = new float[64];
            for (int i = 0; i < 64; i++) {
                x[i] = i;
                y[i] = 0.5f;
            }
            for (int run = 0; run < 2; run++) {
                float[] out = s.run(Map.of("x", Tensor.ofFloats(x, 8, 8), "y", Tensor.ofFloats(y, 8, 8)))
                        .get("out").floats();
                for (int i = 0; i < 64; i++) {
                    assertEquals(3 * x[i] * 0.5f + 2 * c[i % 8], out[i], "element " + i);
                }
            }
            // add_c must not write into p (add_p reads it later), add_twice not into q (it reads q twice);
            // add_p may take r, read by nobody after it
            assertEquals(2, own.inplace.get());
        }
    }

    @Test
    void aValueWhoseAliasIsStillReadIsNeverWrittenInPlace() {
        // a's last direct reader is add (which may write into its first input), but r, a view of a's array, is read
        // after it: add must take a buffer of its own
        ModelBuilder model = new ModelBuilder().opset(17).input("x", FLOAT, 8, 8).input("y", FLOAT, 8, 8)
                .longs("flat", new long[] {64}, 1)
                .node("Relu", "relu_x", List.of("x"), List.of("a"))
                .node("Reshape", "view_a", List.of("a", "flat"), List.of("r"))
                .node("Add", "add", List.of("a", "y"), List.of("b"))
                .node("Relu", "relu_r", List.of("r"), List.of("c"))
                .output("b", FLOAT, 8, 8).output("c", FLOAT, 64);
        float[] x = new float[64];
        float[] y = new float[64];
        for (int i = 0; i < 64; i++) {
            x[i] = i % 7 - 3;
            y[i] = 10;
        }
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(x, 8, 8), "y", Tensor.ofFloats(y, 8, 8));
        Set<String> ops = Set.of("Add", "Relu", "Reshape");
        try (RuntimeEnvironment env = environment(ops, Set.of());
             Session s = env.createSession(model.bytes(), onKernelEp(env))) {
            assertEquals(KernelTestEp.NAME, epOf(s, "view_a"));
            for (int run = 0; run < 3; run++) {
                Map<String, Tensor> out = s.run(feeds);
                for (int i = 0; i < 64; i++) {
                    assertEquals(Math.max(0, x[i]) + 10, out.get("b").floats()[i], "b " + i);
                    assertEquals(Math.max(0, x[i]), out.get("c").floats()[i], "c " + i);
                }
            }
            // nor relu_r into r: a and r are one buffer, freed together after relu_r
            assertEquals(0, stats.inplace.get(), "no kernel wrote into the buffer of a and r");
        }
    }

    // ---- control flow ----

    private static ModelBuilder ifModel() {
        var then = new ModelBuilder().node("Add", "then_add", List.of("x", "x"), List.of("t"))
                .output("t", FLOAT, 2, 3).proto().getGraph().toBuilder().setName("then").build();
        var otherwise = new ModelBuilder().node("Relu", "else_relu", List.of("x"), List.of("e"))
                .output("e", FLOAT, 2, 3).proto().getGraph().toBuilder().setName("else").build();
        return new ModelBuilder().opset(17).input("c", BOOL).input("x", FLOAT, 2, 3)
                .node("If", "if", List.of("c"), List.of("y"), Attributes.attr("then_branch", then),
                        Attributes.attr("else_branch", otherwise))
                .output("y", FLOAT, 2, 3);
    }

    private static ModelBuilder loopModel() {
        var body = new ModelBuilder().input("i", INT64).input("cin", BOOL).input("v", FLOAT, 2, 3)
                .node("Identity", "keep_going", List.of("cin"), List.of("cout"))
                .node("Add", "body_add", List.of("v", "x"), List.of("vout"))
                .node("Relu", "body_relu", List.of("vout"), List.of("scan_out"))
                .output("cout", BOOL).output("vout", FLOAT, 2, 3).output("scan_out", FLOAT, 2, 3)
                .proto().getGraph().toBuilder().setName("body").build();
        return new ModelBuilder().opset(17).input("x", FLOAT, 2, 3).input("v0", FLOAT, 2, 3)
                .longs("M", new long[] {3}).initializer("go", Tensor.ofBooleans(new boolean[] {true}))
                .node("Loop", "loop", List.of("M", "go", "v0"), List.of("v", "trace"), Attributes.attr("body", body))
                .output("v", FLOAT, 2, 3).output("trace", FLOAT, 3, 2, 3);
    }

    private static ModelBuilder scanModel() {
        var body = new ModelBuilder().input("sin", FLOAT, 3).input("xt", FLOAT, 3)
                .node("Add", "scan_add", List.of("sin", "xt"), List.of("sout"))
                .node("Relu", "scan_relu", List.of("sout"), List.of("yt"))
                .output("sout", FLOAT, 3).output("yt", FLOAT, 3)
                .proto().getGraph().toBuilder().setName("scan_body").build();
        return new ModelBuilder().opset(17).input("s0", FLOAT, 3).input("xs", FLOAT, 4, 3)
                .node("Scan", "scan", List.of("s0", "xs"), List.of("s", "ys"), Attributes.attr("body", body),
                        Attributes.attr("num_scan_inputs", 1L))
                .output("s", FLOAT, 3).output("ys", FLOAT, 4, 3);
    }

    @Test
    void ifLoopAndScanRunTheirBodiesOnTheEpsKernels() {
        Tensor x = Tensor.ofFloats(new float[] {1, -2, 3, -4, 5, -6}, 2, 3);
        try (RuntimeEnvironment env = environment(ALL, Set.of())) {
            try (Session s = env.createSession(ifModel().bytes(), onKernelEp(env));
                 Session cpu = env.createSession(ifModel().bytes(), new SessionOptions())) {
                assertEquals(KernelTestEp.NAME, epOf(s, "if"));
                assertEquals(KernelTestEp.NAME, epOf(s, "if/then_branch/then_add"));
                assertEquals(KernelTestEp.NAME, epOf(s, "if/else_branch/else_relu"));
                for (boolean c : new boolean[] {true, false}) {
                    Map<String, Tensor> feeds = Map.of("c", Tensor.ofBooleans(new boolean[] {c}), "x", x);
                    assertArrayEquals(cpu.run(feeds).get("y").floats(), s.run(feeds).get("y").floats());
                }
                assertEquals(1, stats.calls("Add@13+"));
                assertEquals(1, stats.calls("Relu"));
            }
            try (Session s = env.createSession(loopModel().bytes(), onKernelEp(env));
                 Session cpu = env.createSession(loopModel().bytes(), new SessionOptions())) {
                assertEquals(KernelTestEp.NAME, epOf(s, "loop"));
                assertEquals(KernelTestEp.NAME, epOf(s, "loop/body/body_add"));
                assertEquals(RuntimeEnvironment.CPU_EP, epOf(s, "loop/body/keep_going"));
                Map<String, Tensor> feeds = Map.of("x", x, "v0", Tensor.ofFloats(new float[] {0, 1, 2, 3, 4, 5}, 2,
                        3));
                Map<String, Tensor> want = cpu.run(feeds);
                Map<String, Tensor> got = s.run(feeds);
                assertArrayEquals(want.get("v").floats(), got.get("v").floats());
                assertArrayEquals(want.get("trace").floats(), got.get("trace").floats());
                assertArrayEquals(new long[] {3, 2, 3}, got.get("trace").shape());
                assertEquals(1 + 3, stats.calls("Add@13+"));
                assertEquals(1 + 3, stats.calls("Relu"));
            }
            try (Session s = env.createSession(scanModel().bytes(), onKernelEp(env));
                 Session cpu = env.createSession(scanModel().bytes(), new SessionOptions())) {
                assertEquals(KernelTestEp.NAME, epOf(s, "scan"));
                assertEquals(KernelTestEp.NAME, epOf(s, "scan/body/scan_add"));
                Map<String, Tensor> feeds = Map.of("s0", Tensor.ofFloats(new float[] {0, 0, 0}, 3),
                        "xs", Tensor.ofFloats(new float[] {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12}, 4, 3));
                Map<String, Tensor> want = cpu.run(feeds);
                Map<String, Tensor> got = s.run(feeds);
                assertArrayEquals(want.get("s").floats(), got.get("s").floats());
                assertArrayEquals(want.get("ys").floats(), got.get("ys").floats());
                assertEquals(4 + 4, stats.calls("Add@13+"));
            }
        }
    }

    private InferenceSession direct(ModelBuilder model) {
        io.ortex.api.spi.SupportedDevice cpu = io.ortex.api.spi.SupportedDevice.of(TestDevices.CPU);
        return InferenceSession.create(model.build(), new SessionOptions(), List.of(
                new EpBinding(new CountingEpFactory(KernelTestEp.NAME, () -> new KernelTestEp(stats, ALL, Set.of())),
                        List.of(cpu)), new EpBinding(new CountingEpFactory(new CpuEpFactory()), List.of(cpu))),
                x -> { });
    }

    private static ExecutionPlan.Step step(InferenceSession s, String ops) {
        return s.plan().steps().stream().filter(st -> st.ops().equals(ops)).findFirst().orElseThrow();
    }

    @Test
    void thePlanKeepsEachInputsPlacementAndTheInPlaceDecisions() {
        try (InferenceSession s = direct(mixed(false))) {
            RegistryKernel add = (RegistryKernel) step(s, "Add").kernel();
            RegistryKernel relu = (RegistryKernel) step(s, "Relu").kernel();
            RegistryKernel matMul = (RegistryKernel) step(s, "MatMul").kernel();
            assertTrue(add.inplaceAllowed(0), "Add may write into MatMul's output");
            assertTrue(relu.inplaceAllowed(0), "Relu may write into Mul's output");
            assertEquals(KernelMemoryType.DEFAULT, matMul.inputPlacement(0));
        }
        try (InferenceSession s = direct(mixed(true))) {
            assertTrue(!((RegistryKernel) step(s, "Add").kernel()).inplaceAllowed(0), "mm is a graph output");
        }
        try (InferenceSession s = direct(ifModel())) {
            ExecutionPlan.Step ifStep = step(s, "If");
            RegistryKernel ifKernel = (RegistryKernel) ifStep.kernel();
            assertEquals(KernelMemoryType.CPU_INPUT, ifKernel.inputPlacement(List.of(ifStep.inputs()).indexOf("c")));
            // the runtime's control-flow kernel works in host memory: its outputs are there
            assertEquals(KernelMemoryType.CPU_OUTPUT, ifKernel.outputPlacement(0));
        }
    }

    @Test
    void aControlFlowKernelNeedsTheCpuEp() {
        try (RuntimeEnvironment env = environment(ALL, Set.of())) {
            SessionOptions alone = onKernelEp(env).config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1");
            OrtexException e = assertThrows(OrtexException.class,
                    () -> env.createSession(ifModel().bytes(), alone).close());
            assertTrue(e.getMessage().contains("'if'"), e.getMessage());
        }
    }

    // ---- pre-packed weights ----

    @Test
    void twoSessionsShareOnePackThroughTheEnvironmentUntilBothClose() {
        try (RuntimeEnvironment env = environment(ALL, Set.of())) {
            SessionOptions shared = onKernelEp(env).config(SessionOptions.USE_ENV_ALLOCATORS, "1");
            Map<String, Tensor> feeds = mixedFeeds(11);
            float[] want;
            try (Session cpu = env.createSession(mixed(false).bytes(), new SessionOptions())) {
                want = cpu.run(feeds).get("out").floats();
            }
            Session first = env.createSession(mixed(false).bytes(), shared);
            Session second = env.createSession(mixed(false).bytes(), shared);
            assertEquals(1, stats.packs.get(), "one pack for two sessions");
            assertEquals(1, env.prePacks().size());
            assertClose(want, first.run(feeds).get("out").floats());
            assertClose(want, second.run(feeds).get("out").floats());
            assertEquals(2, stats.packedRuns.get());
            first.close();
            assertEquals(0, stats.releases.get(), "the second session still uses the pack");
            assertClose(want, second.run(feeds).get("out").floats());
            second.close();
            assertEquals(1, stats.releases.get());
            assertEquals(0, env.prePacks().size());
        }
    }

    @Test
    void withoutSharingEachSessionPacksItsOwnAndDisabledPrepackingPacksNothing() {
        try (RuntimeEnvironment env = environment(ALL, Set.of())) {
            Map<String, Tensor> feeds = mixedFeeds(12);
            float[] want;
            try (Session cpu = env.createSession(mixed(false).bytes(), new SessionOptions())) {
                want = cpu.run(feeds).get("out").floats();
            }
            try (Session a = env.createSession(mixed(false).bytes(), onKernelEp(env));
                 Session b = env.createSession(mixed(false).bytes(), onKernelEp(env))) {
                assertEquals(2, stats.packs.get());
                assertEquals(0, env.prePacks().size());
                assertClose(want, a.run(feeds).get("out").floats());
                assertClose(want, b.run(feeds).get("out").floats());
            }
            assertEquals(2, stats.releases.get());
            try (Session c = env.createSession(mixed(false).bytes(),
                    onKernelEp(env).config(SessionOptions.DISABLE_PREPACKING, "1"))) {
                assertClose(want, c.run(feeds).get("out").floats());
            }
            assertEquals(2, stats.packs.get());
            assertEquals(2, stats.packedRuns.get(), "the unpacked session ran on the weight as given");
        }
    }

    // ---- concurrency ----

    @Test
    void concurrentRunsFromSeveralThreadsMatchTheCpuEp() throws Exception {
        try (RuntimeEnvironment env = environment(ALL, Set.of());
             Session s = env.createSession(mixed(false).bytes(),
                     onKernelEp(env).config(SessionOptions.USE_ENV_ALLOCATORS, "1"));
             Session loop = env.createSession(loopModel().bytes(), onKernelEp(env));
             Session cpu = env.createSession(mixed(false).bytes(), new SessionOptions());
             Session cpuLoop = env.createSession(loopModel().bytes(), new SessionOptions())) {
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                int seed = t;
                threads.add(new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < 40; i++) {
                            Map<String, Tensor> feeds = mixedFeeds(seed * 1000L + i);
                            assertClose(cpu.run(feeds).get("out").floats(), s.run(feeds).get("out").floats());
                            float[] v = new float[6];
                            for (int k = 0; k < 6; k++) {
                                v[k] = seed + i - k;
                            }
                            Map<String, Tensor> lf = Map.of("x", Tensor.ofFloats(v, 2, 3), "v0",
                                    Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3));
                            assertArrayEquals(cpuLoop.run(lf).get("trace").floats(),
                                    loop.run(lf).get("trace").floats());
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> "failures: " + failures);
            assertEquals(240, stats.calls("MatMul"));
            assertTrue(stats.inplace.get() >= 240, "in place under concurrent runs: " + stats.inplace.get());
        }
    }
}
