package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelMemoryType;
import io.ortex.testing.Attributes;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Nodes that an EP working in device memory runs through its kernel registry: each input is handed over where the
 * kernel's definition places it ({@code DEFAULT}: the EP's memory, {@code CPU_INPUT}: host memory), each output is
 * where the definition puts it ({@code CPU_OUTPUT}: host memory), an alias output is its input's block, freed once
 * after the last reader of either, a kernel that breaks its alias is refused, and the runtime's If reads its condition
 * and hands back its outputs in host memory. Copies are counted exactly, outputs equal the CPU EP's, and every device
 * block is given back exactly once, from several threads at once.
 */
class RegistryDeviceMemoryTest {
    private static final ElementType FLOAT = ElementType.FLOAT;
    private static final ElementType INT64 = ElementType.INT64;
    private static final ElementType BOOL = ElementType.BOOL;
    private static final SessionOptions PREFER_NPU =
            new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU);
    private static final List<String> OPS = List.of("Add", "Relu", "Reshape", "Shape", "Mul", "Not", "If");

    private static RuntimeEnvironment environment(RegistryDeviceEp factory) {
        return DeviceTestEpFactory.environment(List.of(RegistryDeviceEp.NPU), factory);
    }

    private static Map<String, Tensor> onCpu(ModelBuilder model, Map<String, Tensor> feeds) {
        return DeviceTestEpFactory.onCpuAlone(model.bytes(), feeds);
    }

    /**
     * {@code a = Relu(x)}, {@code r = Reshape(a, [3, 2])} (an alias of a), {@code sh = Shape(r)} (on the host),
     * {@code shf = Cast(sh)} (the CPU EP's), {@code sh2 = Add(sh, [1])}, {@code s2 = Relu(s)}, {@code m = Mul(r, s)}
     * and {@code m2 = Mul(m, s2)} (scalars read on the host), {@code out = Add(m2, r)} (r read last here).
     */
    private static ModelBuilder placements() {
        return new ModelBuilder().opset(17).input("x", FLOAT, 2, 3).input("s", FLOAT)
                .longs("shp", new long[] {3, 2}, 2).longs("one", new long[] {1}, 1)
                .node("Relu", "relu_x", List.of("x"), List.of("a"))
                .node("Reshape", "reshape", List.of("a", "shp"), List.of("r"))
                .node("Shape", "shape", List.of("r"), List.of("sh"))
                .node("Cast", "cast", List.of("sh"), List.of("shf"), Attributes.attr("to", 1L))
                .node("Add", "add_sh", List.of("sh", "one"), List.of("sh2"))
                .node("Relu", "relu_s", List.of("s"), List.of("s2"))
                .node("Mul", "scale_s", List.of("r", "s"), List.of("m"))
                .node("Mul", "scale_s2", List.of("m", "s2"), List.of("m2"))
                .node("Add", "add_out", List.of("m2", "r"), List.of("out"))
                .output("out", FLOAT, 3, 2).output("sh2", INT64, 2).output("shf", FLOAT, 2);
    }

    private static Map<String, Tensor> placementFeeds(int seed) {
        float[] x = {1, -2, 3, -4, 5, -6};
        for (int i = 0; i < x.length; i++) {
            x[i] += seed;
        }
        return Map.of("x", Tensor.ofFloats(x, 2, 3), "s", Tensor.of(FLOAT, new long[0], new float[] {0.5f + seed}));
    }

    private static List<String> copies(Session s) {
        return s.valueCopies().stream().map(c -> c.value() + ":" + c.from() + "->" + c.to() + ":" + c.kind() + ":"
                + c.count()).sorted().toList();
    }

    private static void assertSame(Map<String, Tensor> want, Map<String, Tensor> got) {
        assertEquals(want.keySet(), got.keySet());
        for (Map.Entry<String, Tensor> e : want.entrySet()) {
            Tensor g = got.get(e.getKey());
            assertTrue(!g.isOffHeap(), e.getKey() + " reaches the caller in host memory");
            assertArrayEquals(e.getValue().shape(), g.shape(), e.getKey());
            if (e.getValue().type() == INT64) {
                assertArrayEquals(e.getValue().longs(), g.longs(), e.getKey());
            } else {
                assertArrayEquals(e.getValue().floats(), g.floats(), e.getKey());
            }
        }
    }

    @Test
    void eachInputAndOutputIsWhereItsKernelWantsItWithExactlyTheCopiesThatNeeds() {
        RegistryDeviceEp factory = new RegistryDeviceEp(OPS.toArray(String[]::new));
        Map<String, Tensor> expected = onCpu(placements(), placementFeeds(0));
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(placements().bytes(), PREFER_NPU)) {
            assertEquals(List.of("add_out", "add_sh", "relu_s", "relu_x", "reshape", "scale_s", "scale_s2", "shape"),
                    s.assignment().stream().filter(a -> a.ep().equals(RegistryDeviceEp.NAME))
                            .map(NodeAssignment::node).sorted().toList());
            CountingDeviceAllocator device = factory.device();
            assertEquals(1, device.allocated.get(), "the constant [1] was copied into device memory once");
            for (int run = 1; run <= 3; run++) {
                assertSame(expected, s.run(placementFeeds(0)));
                // x, s and sh copied in; a, sh2, s2, m, m2 and out made there; r is a's block
                assertEquals(1 + 9 * run, device.allocated.get(), "device blocks handed out");
                assertEquals(9 * run, device.freed.get(), "every block of the run given back once");
                assertEquals(1, device.live(), "only the constant's copy stays");
            }
            // shp is read on the host (CPU_INPUT) where it is: no copy; s likewise for scale_s; sh is made on the
            // host (CPU_OUTPUT): Cast reads it as it is, add_sh gets a copy; s2 is copied out for scale_s2
            assertEquals(List.of("one:Cpu->RegNpu:INITIALIZER:1", "out:RegNpu->Cpu:OUTPUT:3", "s2:RegNpu->Cpu:RUN:3",
                    "s:Cpu->RegNpu:RUN:3", "sh2:RegNpu->Cpu:OUTPUT:3", "sh:Cpu->RegNpu:RUN:3",
                    "x:Cpu->RegNpu:RUN:3"), copies(s));
            assertEquals(3 * 3 + 1, factory.transfer.toDevice.get());
            assertEquals(3 * 3, factory.transfer.toHost.get());
        }
        assertEquals(0, factory.liveBlocks(), "the constant's copy went back with the session");
    }

    /**
     * {@code nc = Not(c)} and {@code xr = Relu(x)} in device memory, {@code y = If(nc)} (then {@code xr + xr}, else
     * {@code Relu(xr)}, both on the EP) and {@code out = Relu(y)}.
     */
    private static ModelBuilder ifModel() {
        var then = new ModelBuilder().node("Add", "then_add", List.of("xr", "xr"), List.of("t"))
                .output("t", FLOAT, 2, 3).proto().getGraph().toBuilder().setName("then").build();
        var otherwise = new ModelBuilder().node("Relu", "else_relu", List.of("xr"), List.of("e"))
                .output("e", FLOAT, 2, 3).proto().getGraph().toBuilder().setName("else").build();
        return new ModelBuilder().opset(17).input("c", BOOL).input("x", FLOAT, 2, 3)
                .node("Not", "not_c", List.of("c"), List.of("nc"))
                .node("Relu", "relu_x", List.of("x"), List.of("xr"))
                .node("If", "if", List.of("nc"), List.of("y"), Attributes.attr("then_branch", then),
                        Attributes.attr("else_branch", otherwise))
                .node("Relu", "relu_y", List.of("y"), List.of("out"))
                .output("out", FLOAT, 2, 3);
    }

    private static Map<String, Tensor> ifFeeds(boolean c) {
        return Map.of("c", Tensor.ofBooleans(new boolean[] {c}), "x",
                Tensor.ofFloats(new float[] {1, -2, 3, -4, 5, -6}, 2, 3));
    }

    @Test
    void anIfClaimedByTheEpReadsItsConditionAndOuterValuesOnTheHostAndReturnsItsOutputThere() {
        RegistryDeviceEp factory = new RegistryDeviceEp(OPS.toArray(String[]::new));
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(ifModel().bytes(), PREFER_NPU)) {
            assertTrue(s.assignment().stream().allMatch(a -> a.ep().equals(RegistryDeviceEp.NAME)),
                    s.assignment().toString());
            InferenceSession session = (InferenceSession) s;
            RegistryKernel ifKernel = (RegistryKernel) session.plan().steps().stream()
                    .filter(st -> st.ops().equals("If")).findFirst().orElseThrow().kernel();
            assertEquals(KernelMemoryType.CPU_INPUT, ifKernel.inputPlacement(0), "cond");
            assertEquals(KernelMemoryType.CPU_OUTPUT, ifKernel.outputPlacement(0));
            for (boolean c : new boolean[] {true, false, true}) {
                assertSame(onCpu(ifModel(), ifFeeds(c)), s.run(ifFeeds(c)));
            }
            // per run: c and x copied in, nc and xr copied out for the If, y copied in for relu_y, out copied out;
            // the branch that runs (else twice, then once) copies xr back in for its node and its output out
            assertEquals(List.of("c:Cpu->RegNpu:RUN:3", "e:RegNpu->Cpu:OUTPUT:2", "nc:RegNpu->Cpu:RUN:3",
                    "out:RegNpu->Cpu:OUTPUT:3", "t:RegNpu->Cpu:OUTPUT:1", "x:Cpu->RegNpu:RUN:3",
                    "xr:Cpu->RegNpu:RUN:1", "xr:Cpu->RegNpu:RUN:2", "xr:RegNpu->Cpu:RUN:3", "y:Cpu->RegNpu:RUN:3"),
                    copies(s));
            assertEquals(3 * 3 + 3, factory.transfer.toDevice.get());
            assertEquals(3 * 3 + 3, factory.transfer.toHost.get());
            assertEquals(0, factory.device().live(), "every device block of the runs and their branches given back");
            assertEquals(factory.device().allocated.get(), factory.device().freed.get());
        }
    }

    @Test
    void aKernelThatDeclaresAnAliasButReturnsAnotherBlockFailsTheRunNamingNodeAndKernel() {
        RegistryDeviceEp factory = new RegistryDeviceEp("Relu", "Flatten");
        ModelBuilder model = new ModelBuilder().opset(17).input("x", FLOAT, 2, 3)
                .node("Relu", "relu_x", List.of("x"), List.of("a"))
                .node("Flatten", "copy_a", List.of("a"), List.of("b"))
                .node("Relu", "relu_b", List.of("b"), List.of("out"))
                .output("out", FLOAT, 2, 3);
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(model.bytes(), PREFER_NPU)) {
            OrtexException e = assertThrows(OrtexException.class, () -> s.run(Map.of("x", ifFeeds(true).get("x"))));
            assertTrue(e.getMessage().contains("'copy_a'") && e.getMessage().contains("Flatten")
                    && e.getMessage().contains("alias of input 0"), e.getMessage());
            assertEquals(0, factory.device().live(), "the failed run gave its blocks back, the refused one too");
        }
    }

    @Test
    void concurrentRunsGetTheirOwnBlocksAndGiveEachBackOnce() throws Exception {
        RegistryDeviceEp factory = new RegistryDeviceEp(OPS.toArray(String[]::new));
        int threads = 4;
        int runs = 25;
        List<Map<String, Tensor>> expected = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            expected.add(onCpu(placements(), placementFeeds(t)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(placements().bytes(), PREFER_NPU)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    for (int r = 0; r < runs; r++) {
                        assertSame(expected.get(seed), s.run(placementFeeds(seed)));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            CountingDeviceAllocator device = factory.device();
            assertEquals(1 + 9 * threads * runs, device.allocated.get());
            assertEquals(9 * threads * runs, device.freed.get());
            assertTrue(copies(s).contains("x:Cpu->RegNpu:RUN:" + threads * runs), copies(s).toString());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, factory.liveBlocks());
    }

    @Test
    void onAStreamAHostReadOfADeviceValueWaitsForItsCopy() {
        RegistryDeviceEp factory = new RegistryDeviceEp(true, OPS.toArray(String[]::new));
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(placements().bytes(), PREFER_NPU);
             Session branches = env.createSession(ifModel().bytes(), PREFER_NPU)) {
            for (int run = 0; run < 5; run++) {
                // scale_s2 reads s2 (copied out of device memory on the stream) and the If reads nc on the host
                assertSame(onCpu(placements(), placementFeeds(run)), s.run(placementFeeds(run)));
                assertSame(onCpu(ifModel(), ifFeeds(run % 2 == 0)), branches.run(ifFeeds(run % 2 == 0)));
            }
            assertEquals(1, factory.device().live(), "only the constant's copy stays");
            assertTrue(copies(s).contains("s2:RegNpu->Cpu:RUN:5"), copies(s).toString());
        }
        assertEquals(0, factory.liveBlocks());
    }

    @Test
    void aKernelThatReturnsACpuOutputInDeviceMemoryFailsTheRunNamingNodeAndKernel() {
        RegistryDeviceEp factory = new RegistryDeviceEp("Relu", "Size");
        ModelBuilder model = new ModelBuilder().opset(17).input("x", FLOAT, 2, 3)
                .node("Relu", "relu_x", List.of("x"), List.of("a"))
                .node("Size", "size_a", List.of("a"), List.of("n"))
                .output("n", INT64);
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(model.bytes(), PREFER_NPU)) {
            OrtexException e = assertThrows(OrtexException.class, () -> s.run(Map.of("x", ifFeeds(true).get("x"))));
            assertTrue(e.getMessage().contains("'size_a'") && e.getMessage().contains("Size")
                    && e.getMessage().contains("CPU_OUTPUT"), e.getMessage());
            assertEquals(0, factory.device().live(), "the failed run gave its blocks back, the refused one too");
        }
    }

    @Test
    void anAliasOfAConstantInDeviceMemoryIsTheConstantsCopyAndIsNeverGivenBackByARun() {
        RegistryDeviceEp factory = new RegistryDeviceEp(OPS.toArray(String[]::new));
        ModelBuilder model = new ModelBuilder().opset(17).input("x", FLOAT, 3, 2)
                .floats("w", new long[] {2, 3}, 1, 2, 3, 4, 5, 6).longs("shp", new long[] {3, 2}, 2)
                .node("Reshape", "reshape_w", List.of("w", "shp"), List.of("r"))
                .node("Add", "add", List.of("x", "r"), List.of("out"))
                .output("out", FLOAT, 3, 2);
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(new float[] {1, -2, 3, -4, 5, -6}, 3, 2));
        // not folded into a constant: the alias is what is tested
        SessionOptions unoptimized = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU)
                .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL);
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(model.bytes(), unoptimized)) {
            for (int run = 0; run < 3; run++) {
                assertSame(onCpu(model, feeds), s.run(feeds));
                assertEquals(1, factory.device().live(), "w's copy, made once, outlives every run");
            }
            assertEquals(List.of("out:RegNpu->Cpu:OUTPUT:3", "w:Cpu->RegNpu:INITIALIZER:1", "x:Cpu->RegNpu:RUN:3"),
                    copies(s));
        }
        assertEquals(0, factory.liveBlocks());
    }
}
