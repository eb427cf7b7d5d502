package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.ModelReader;
import io.ortex.testing.ModelBuilder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Capacity-aware partitioning ({@link ResourceBudgets}): an EP that reports the memory it has for weights, or whose
 * session sets {@code ep.<name>.resource_budget_kb}, keeps the claimed nodes whose weights fit, in graph order, and
 * the CPU EP runs the rest with the same results.
 */
class ResourceBudgetTest {
    private static final String CPU_EP = "CPUExecutionProvider";
    /** Floats per weight: 1 KiB each. */
    private static final int N = 256;

    /** {@code out = ((x + w1) + w2) + w3}, nodes a1, a2, a3; each weight 1 KiB; with {@code shared}, w1 thrice. */
    private static ModelBuilder chain(boolean shared) {
        return TestModels.builder()
                .input("x", TestModels.FLOAT, N)
                .floats("w1", new long[] {N}, filled(1))
                .floats("w2", new long[] {N}, filled(2))
                .floats("w3", new long[] {N}, filled(3))
                .node("Add", "a1", List.of("x", "w1"), List.of("s1"))
                .node("Add", "a2", List.of("s1", shared ? "w1" : "w2"), List.of("s2"))
                .node("Add", "a3", List.of("s2", shared ? "w1" : "w3"), List.of("out"))
                .output("out", TestModels.FLOAT, N);
    }

    private static float[] filled(float v) {
        float[] a = new float[N];
        Arrays.fill(a, v);
        return a;
    }

    private static InferenceSession session(ModelBuilder model, FakeEp fake, Map<String, String> config) {
        SessionOptions options = new SessionOptions().graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL);
        config.forEach(options::config);
        List<EpBinding> bindings = List.of(
                new EpBinding(new CountingEpFactory(fake.name(), () -> fake), List.of(SupportedDevice.of(CPU))),
                new EpBinding(new CountingEpFactory(new CpuEpFactory()), List.of(SupportedDevice.of(CPU))));
        return InferenceSession.create(ModelReader.read(model.bytes(), null), options, bindings, s -> { });
    }

    private static FakeEp fusingAllAdds() {
        return new FakeEp("FakeEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "a1", "a2", "a3")));
    }

    private static Map<String, String> epOfNode(InferenceSession s) {
        return s.assignment().stream().collect(Collectors.toMap(NodeAssignment::node, NodeAssignment::ep,
                (a, b) -> a, LinkedHashMap::new));
    }

    private static void checkOutput(InferenceSession s, float expected) {
        float[] x = filled(0.5f);
        float[] out = s.run(Map.of("x", Tensor.ofFloats(x, N))).get("out").floats();
        assertArrayEquals(filled(0.5f + expected), out);
    }

    @Test
    void theEpKeepsTheNodesWhoseWeightsFitItsMemoryAndTheCpuEpRunsTheRest() {
        FakeEp fake = fusingAllAdds().availableMemory(2 * 1024 + 100);
        try (InferenceSession s = session(chain(false), fake, Map.of())) {
            assertEquals(Map.of("a1", "FakeEP", "a2", "FakeEP", "a3", CPU_EP), epOfNode(s));
            assertEquals(1, fake.compiledGraphs.size());
            assertEquals(2, fake.compiledGraphs.get(0).nodes().size(), "the fused group keeps its first two nodes");
            checkOutput(s, 6);
        }
    }

    @Test
    void aSessionOptionSetsABudgetAndTheSmallerOneApplies() {
        FakeEp fake = fusingAllAdds().availableMemory(1 << 20);
        try (InferenceSession s = session(chain(false), fake, Map.of("ep.fakeep" + ResourceBudgets.OPTION, "1"))) {
            assertEquals(Map.of("a1", "FakeEP", "a2", CPU_EP, "a3", CPU_EP), epOfNode(s));
            checkOutput(s, 6);
        }
        try (InferenceSession s = session(chain(false), fusingAllAdds(), Map.of("ep.fakeep.resource_budget_kb",
                "0"))) {
            assertEquals(Map.of("a1", CPU_EP, "a2", CPU_EP, "a3", CPU_EP), epOfNode(s), "nothing fits 0 KB");
        }
    }

    @Test
    void aWeightReadByManyNodesCountsOnce() {
        try (InferenceSession s = session(chain(true), fusingAllAdds().availableMemory(1024), Map.of())) {
            assertEquals(Map.of("a1", "FakeEP", "a2", "FakeEP", "a3", "FakeEP"), epOfNode(s));
            checkOutput(s, 3);
        }
    }

    @Test
    void withoutABudgetTheClaimIsWhole() {
        try (InferenceSession s = session(chain(false), fusingAllAdds(), Map.of())) {
            assertEquals(Map.of("a1", "FakeEP", "a2", "FakeEP", "a3", "FakeEP"), epOfNode(s));
        }
    }

    @Test
    void aBudgetThatIsNotAWholeNumberOfKbIsRefusedByName() {
        for (String bad : List.of("lots", "-1", "1.5", "")) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> session(chain(false), fusingAllAdds(), Map.of("ep.fakeep.resource_budget_kb", bad)));
            assertTrue(e.getMessage().contains("ep.fakeep.resource_budget_kb") && e.getMessage().contains("KB"),
                    e.getMessage());
        }
    }
}
