package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.NodeAssignment;
import io.ortex.api.NotImplementedException;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.Graph;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PartitionerTest {
    private static final String CPU_EP = "CPUExecutionProvider";

    private final CountingEpFactory cpu = new CountingEpFactory(new CpuEpFactory());
    private final List<String> log = new ArrayList<>();

    /** {@code a = x + y; r = Relu(a); out = a + r}, nodes a1, r, a2; x, y: float[4]. */
    private static ModelBuilder diamond() {
        return TestModels.builder()
                .input("x", TestModels.FLOAT, 4)
                .input("y", TestModels.FLOAT, 4)
                .node("Add", "a1", List.of("x", "y"), List.of("a"))
                .node("Relu", "r", List.of("a"), List.of("rr"))
                .node("Add", "a2", List.of("a", "rr"), List.of("out"))
                .output("out", TestModels.FLOAT, 4);
    }

    private static Map<String, Tensor> diamondFeeds() {
        return Map.of("x", Tensor.ofFloats(new float[] {1, -2, 3, -4}, 4),
                "y", Tensor.ofFloats(new float[] {0.5f, 1, -5, 2}, 4));
    }

    /** What {@link #diamond()} computes on {@link #diamondFeeds()}. */
    private static final float[] DIAMOND_OUT = {3, -1, -2, -2};

    private InferenceSession session(ModelBuilder model, FakeEp... fakes) {
        List<EpBinding> bindings = new ArrayList<>();
        for (FakeEp f : fakes) {
            bindings.add(new EpBinding(new CountingEpFactory(f.name(), () -> f), List.of(SupportedDevice.of(CPU))));
        }
        bindings.add(new EpBinding(cpu, List.of(SupportedDevice.of(CPU))));
        // the partitioner sees the graph as written: no optimizer merges or removes nodes first
        return InferenceSession.create(ModelReader.read(model.bytes(), null), new SessionOptions()
                .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL), bindings, s -> { });
    }

    private static Map<String, String> epOfNode(InferenceSession s) {
        return s.assignment().stream().collect(Collectors.toMap(NodeAssignment::node, NodeAssignment::ep,
                (a, b) -> a, LinkedHashMap::new));
    }

    @Test
    void aFusedGroupThatWouldCreateACycleGetsNothing() {
        FakeEp fake = new FakeEp("FakeEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "a1", "a2")));
        try (InferenceSession s = session(diamond(), fake)) {
            assertEquals(Map.of("a1", CPU_EP, "r", CPU_EP, "a2", CPU_EP), epOfNode(s));
            assertTrue(fake.compiledGraphs.isEmpty());
            assertArrayEquals(DIAMOND_OUT, s.run(diamondFeeds()).get("out").floats());
        }
    }

    @Test
    void theCycleCheckSeesPathsThroughNodesOfEveryEp() {
        OnnxModel model = ModelReader.read(diamond().bytes(), null);
        Graph g = model.graph();
        FakeEp fake = new FakeEp("FakeEP", (graph, support) -> support.addNodesToFuse(FakeEp.nodes(graph, "a1",
                "a2")));
        FakeEp takesR = new FakeEp("TakesR", (graph, support) -> support.addSingleNode(FakeEp.node(graph, "r")));
        List<Partitioner.Group> groups = Partitioner.partition(g, List.of(takesR, fake,
                cpu.createEp(List.of(), Map.of())), (level, msg) -> log.add(msg));
        assertEquals(3, groups.size());
        assertEquals("TakesR", groups.get(0).ep().name());
        assertTrue(groups.stream().skip(1).allMatch(x -> x.ep().name().equals(CPU_EP)), groups.toString());
        assertTrue(log.stream().anyMatch(l -> l.contains("FakeEP") && l.contains("cycle") && l.contains("'r'")),
                log.toString());
    }

    @Test
    void groupsThatFeedEachOtherOnceFusedGetNothing() {
        // A = {pa, va} and B = {qb, ub}: pa feeds qb and ub feeds va, so fused A needs B and B needs A
        ModelBuilder m = TestModels.builder()
                .input("x", TestModels.FLOAT, 4)
                .node("Relu", "pa", List.of("x"), List.of("p"))
                .node("Relu", "qb", List.of("p"), List.of("q"))
                .node("Relu", "ub", List.of("x"), List.of("u"))
                .node("Add", "va", List.of("u", "p"), List.of("v"))
                .output("q", TestModels.FLOAT, 4)
                .output("v", TestModels.FLOAT, 4);
        FakeEp both = new FakeEp("BothEP", (g, support) -> {
            support.addNodesToFuse(FakeEp.nodes(g, "pa", "va"));
            support.addNodesToFuse(FakeEp.nodes(g, "qb", "ub"));
        });
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(new float[] {-1, 2, -3, 4}, 4));
        try (InferenceSession s = session(m, both)) {
            assertEquals(List.of(CPU_EP), epOfNode(s).values().stream().distinct().toList());
            Map<String, Tensor> out = s.run(feeds);
            assertArrayEquals(new float[] {0, 2, 0, 4}, out.get("q").floats());
            assertArrayEquals(new float[] {0, 4, 0, 8}, out.get("v").floats());
        }
        FakeEp first = new FakeEp("FirstEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "pa", "va")));
        FakeEp second = new FakeEp("SecondEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "qb", "ub")));
        try (InferenceSession s = session(m, first, second)) {
            assertEquals(Map.of("pa", "FirstEP", "va", "FirstEP", "qb", CPU_EP, "ub", CPU_EP), epOfNode(s));
            Map<String, Tensor> out = s.run(feeds);
            assertArrayEquals(new float[] {0, 2, 0, 4}, out.get("q").floats());
            assertArrayEquals(new float[] {0, 4, 0, 8}, out.get("v").floats());
        }
    }

    @Test
    void anEpWhoseGetCapabilityThrowsClaimsNothing() {
        FakeEp broken = new FakeEp("BrokenEP", (g, support) -> {
            support.addSingleNode(FakeEp.node(g, "a1"));
            throw new IllegalStateException("boom");
        });
        try (InferenceSession s = session(diamond(), broken)) {
            assertEquals(Map.of("a1", CPU_EP, "r", CPU_EP, "a2", CPU_EP), epOfNode(s));
            assertArrayEquals(DIAMOND_OUT, s.run(diamondFeeds()).get("out").floats());
            assertTrue(broken.compiledGraphs.isEmpty());
        }
    }

    @Test
    void aClaimTouchingANodeOfAnEarlierEpIsDropped() {
        FakeEp a = new FakeEp("EpA", (g, support) -> support.addSingleNode(FakeEp.node(g, "a1")));
        FakeEp b = new FakeEp("EpB", (g, support) -> {
            support.addNodesToFuse(FakeEp.nodes(g, "a1", "r"));
            support.addSingleNode(FakeEp.node(g, "a2"));
        });
        try (InferenceSession s = session(diamond(), a, b)) {
            assertEquals(Map.of("a1", "EpA", "r", CPU_EP, "a2", "EpB"), epOfNode(s));
            assertEquals(List.of("EpA", "EpB", CPU_EP), s.executionProviders());
            assertArrayEquals(DIAMOND_OUT, s.run(diamondFeeds()).get("out").floats());
            assertEquals(1, a.computeCalls.get());
            assertEquals(1, b.computeCalls.get());
        }
    }

    @Test
    void aClaimOfANodeOutsideTheGraphVoidsTheWholeAnswer() {
        OnnxModel other = ModelReader.read(diamond().bytes(), null);
        FakeEp stray = new FakeEp("StrayEP", (g, support) -> {
            support.addSingleNode(FakeEp.node(g, "a1"));
            support.addSingleNode(FakeEp.node(other.graph(), "r"));
        });
        try (InferenceSession s = session(diamond(), stray)) {
            assertEquals(Map.of("a1", CPU_EP, "r", CPU_EP, "a2", CPU_EP), epOfNode(s));
        }
    }

    @Test
    void aNodeNobodyClaimsFailsNamingIt() {
        OnnxModel model = ModelReader.read(diamond().bytes(), null);
        FakeEp onlyAdds = new FakeEp("AddsEP", (g, support) -> g.nodes().stream()
                .filter(n -> n.opType().equals("Add")).forEach(support::addSingleNode));
        NotImplementedException e = assertThrows(NotImplementedException.class,
                () -> Partitioner.partition(model.graph(), List.of(onlyAdds), (level, msg) -> log.add(msg)));
        assertTrue(e.getMessage().contains("'r'") && e.getMessage().contains("Relu")
                && e.getMessage().contains("AddsEP"), e.getMessage());
    }

    /**
     * {@code s = x + b; r = Relu(s); m = r * y; out = m + s}: the fake EP fuses {@code add, relu}, the CPU EP runs
     * {@code mul, add2}.
     */
    private static ModelBuilder fusable() {
        return TestModels.builder()
                .input("x", TestModels.FLOAT, 2, 3)
                .input("y", TestModels.FLOAT, 2, 3)
                .floats("b", new long[] {3}, 1, -2, 0.5f)
                .node("Add", "add", List.of("x", "b"), List.of("s"))
                .node("Relu", "relu", List.of("s"), List.of("r"))
                .node("Mul", "mul", List.of("r", "y"), List.of("m"))
                .node("Add", "add2", List.of("m", "s"), List.of("out"))
                .output("out", TestModels.FLOAT, 2, 3);
    }

    private static Map<String, Tensor> fusableFeeds() {
        return Map.of("x", Tensor.ofFloats(new float[] {1, 2, 3, -4, -5, -6}, 2, 3),
                "y", Tensor.ofFloats(new float[] {2, 3, 4, 5, 6, 7}, 2, 3));
    }

    private static FakeEp fuser(FusionOptions options) {
        return new FakeEp("FuserEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "relu", "add"),
                options));
    }

    @Test
    void aFusedGroupIsCompiledWithItsOutsideInputsAndOutputsAndRunsLikeTheCpuEp() {
        float[] cpuOnly;
        try (InferenceSession s = session(fusable())) {
            cpuOnly = s.run(fusableFeeds()).get("out").floats();
        }
        assertArrayEquals(new float[] {6, 0, 17.5f, -3, -7, -5.5f}, cpuOnly);
        FakeEp fake = fuser(FusionOptions.DEFAULT);
        try (InferenceSession s = session(fusable(), fake)) {
            assertEquals(Map.of("add", "FuserEP", "relu", "FuserEP", "mul", CPU_EP, "add2", CPU_EP), epOfNode(s));
            assertEquals(1, fake.compiledGraphs.size());
            GraphView view = fake.compiledGraphs.get(0);
            assertEquals(List.of("add", "relu"), view.nodes().stream().map(NodeView::name).toList(),
                    "nodes in graph order, whatever the claim's order");
            assertEquals(List.of("x", "b"), names(view.inputs()));
            assertEquals(List.of("s", "r"), names(view.outputs()));
            assertEquals(List.of("b"), names(view.initializers()));
            assertEquals(List.of("x", "b"), fake.compiledNodes.get(0).inputNames());
            assertEquals(List.of("s", "r"), fake.compiledNodes.get(0).outputNames());
            assertTrue(fake.compiledNodes.get(0).name().startsWith("FuserEP_FuserEP_"),
                    fake.compiledNodes.get(0).name());
            String partition = s.assignment().get(0).partition();
            assertEquals(fake.compiledNodes.get(0).name(), partition);
            assertEquals(partition, s.assignment().get(1).partition());
            assertArrayEquals(cpuOnly, s.run(fusableFeeds()).get("out").floats());
            assertEquals(1, fake.computeCalls.get());
        }
    }

    @Test
    void droppedConstantInitializersAreNotKernelInputs() {
        FakeEp fake = fuser(new FusionOptions(true));
        try (InferenceSession s = session(fusable(), fake)) {
            assertEquals(List.of("x"), names(fake.compiledGraphs.get(0).inputs()));
            assertEquals(List.of("x"), fake.compiledNodes.get(0).inputNames());
            assertArrayEquals(new float[] {6, 0, 17.5f, -3, -7, -5.5f}, s.run(fusableFeeds()).get("out").floats());
        }
    }

    @Test
    void aGroupOutputThatIsAGraphOutputIsReturned() {
        ModelBuilder m = TestModels.builder()
                .input("x", TestModels.FLOAT, 3)
                .input("y", TestModels.FLOAT, 3)
                .node("Add", "add", List.of("x", "y"), List.of("s"))
                .node("Relu", "relu", List.of("s"), List.of("r"))
                .node("Mul", "mul", List.of("s", "y"), List.of("m"))
                .output("r", TestModels.FLOAT, 3)
                .output("m", TestModels.FLOAT, 3);
        FakeEp fake = new FakeEp("FuserEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "add", "relu")));
        try (InferenceSession s = session(m, fake)) {
            GraphView view = fake.compiledGraphs.get(0);
            assertEquals(List.of("x", "y"), names(view.inputs()));
            assertEquals(List.of("s", "r"), names(view.outputs()));
            Map<String, Tensor> out = s.run(Map.of("x", Tensor.ofFloats(new float[] {1, -5, 2}, 3),
                    "y", Tensor.ofFloats(new float[] {1, 2, -3}, 3)));
            assertEquals(List.of("r", "m"), List.copyOf(out.keySet()));
            assertArrayEquals(new float[] {2, 0, 0}, out.get("r").floats());
            assertArrayEquals(new float[] {2, -6, 3}, out.get("m").floats());
        }
    }

    @Test
    void everyCreatedEpIsReleasedOnClose() {
        CountingEpFactory fakeFactory = new CountingEpFactory("FuserEP", () -> fuser(FusionOptions.DEFAULT));
        InferenceSession s = InferenceSession.create(ModelReader.read(fusable().bytes(), null), new SessionOptions(),
                List.of(new EpBinding(fakeFactory, List.of(SupportedDevice.of(CPU))),
                        new EpBinding(cpu, List.of(SupportedDevice.of(CPU)))), x -> { });
        assertEquals(1, fakeFactory.created.get());
        assertEquals(1, cpu.created.get());
        s.close();
        assertEquals(1, fakeFactory.released.get());
        assertEquals(1, cpu.released.get());
    }

    private static List<String> names(List<ValueView> values) {
        return values.stream().map(ValueView::name).toList();
    }
}
