package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.RunOptions;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.GraphCapturePolicy;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.ModelReader;
import io.ortex.testing.ModelBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Graph capture and replay ({@link GraphCapture}): a capturing test EP is run normally, within the first call, until
 * it has captured the run's graph id, and replays it from then on with the outputs of the new inputs; graph ids are
 * separate, -1 neither captures nor replays, a graph that is never captured is given up after the bound, and the
 * node-assignment policy is checked when the session is created.
 */
class GraphCaptureTest {
    private static final float[] X = {1, 2, 3, 4, 5, 6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};

    private static InferenceSession session(ModelBuilder model, FakeEp fake) {
        List<EpBinding> bindings = List.of(
                new EpBinding(new CountingEpFactory(fake.name(), () -> fake), List.of(SupportedDevice.of(CPU))),
                new EpBinding(new CountingEpFactory(new CpuEpFactory()), List.of(SupportedDevice.of(CPU))));
        return InferenceSession.create(ModelReader.read(model.bytes(), null),
                new SessionOptions().graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL), bindings, s -> { });
    }

    /** A fake EP that fuses every node of the graph and counts a graph id captured after {@code runs} runs. */
    private static FakeEp capturingAll(int runs) {
        return new FakeEp("CaptureEP", (g, support) -> support.addNodesToFuse(g.nodes()))
                .capturing(runs, GraphCapturePolicy.ALL_NODES_ON_EP);
    }

    private static float[] run(InferenceSession s, float scale, RunOptions options) {
        float[] x = X.clone();
        for (int i = 0; i < x.length; i++) {
            x[i] *= scale;
        }
        Map<String, Tensor> out = s.run(Map.of("x", Tensor.ofFloats(x, 2, 3), "y", Tensor.ofFloats(Y, 2, 3)),
                List.of("out"), options);
        float[] expected = TestModels.addMulAddExpected(x, Y);
        assertArrayEquals(expected, out.get("out").floats());
        return out.get("out").floats();
    }

    @Test
    void theFirstCallRunsUntilTheGraphIsCapturedAndLaterCallsReplayIt() {
        FakeEp ep = capturingAll(2);
        try (InferenceSession s = session(TestModels.addMulAdd(), ep)) {
            run(s, 1, new RunOptions());
            assertEquals(2, ep.computeCalls.get(), "one call, two runs: the warm-up and the captured one");
            assertEquals(0, ep.replays.get());
            run(s, 2, new RunOptions());
            run(s, -3, new RunOptions().graphId(0));
            assertEquals(2, ep.computeCalls.get(), "replays do not go through the kernels");
            assertEquals(2, ep.replays.get());
        }
    }

    @Test
    void graphIdsAreCapturedSeparatelyAndMinusOneNeitherCapturesNorReplays() {
        FakeEp ep = capturingAll(1);
        try (InferenceSession s = session(TestModels.addMulAdd(), ep)) {
            run(s, 1, new RunOptions().graphId(3));
            run(s, 1, new RunOptions().graphId(3));
            assertEquals(1, ep.replays.get());
            run(s, 1, new RunOptions().graphId(-1));
            run(s, 1, new RunOptions().graphId(-1));
            assertEquals(3, ep.computeCalls.get(), "graph 3 once, then two plain runs");
            assertEquals(1, ep.replays.get());
            run(s, 1, new RunOptions());
            run(s, 1, new RunOptions());
            assertEquals(List.of(0, 3), ep.captured.stream().sorted().toList());
            assertEquals(2, ep.replays.get());
        }
    }

    @Test
    void aGraphNeverCapturedIsGivenUpAfterTheBoundAndRunsNormally() {
        FakeEp ep = capturingAll(Integer.MAX_VALUE);
        try (InferenceSession s = session(TestModels.addMulAdd(), ep)) {
            run(s, 1, new RunOptions());
            assertEquals(RunOptions.CAPTURE_RUNS, ep.computeCalls.get());
            run(s, 1, new RunOptions());
            assertEquals(RunOptions.CAPTURE_RUNS + 1, ep.computeCalls.get(), "no second round of warm-up runs");
            assertEquals(0, ep.replays.get());
        }
    }

    @Test
    void aNodeOnAnotherEpBreaksAllNodesOnEp() {
        FakeEp addsOnly = new FakeEp("CaptureEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "add")))
                .capturing(1, GraphCapturePolicy.ALL_NODES_ON_EP);
        OrtexException e = assertThrows(OrtexException.class, () -> session(TestModels.addMulRelu(), addsOnly));
        assertTrue(e.getMessage().contains("CaptureEP captures graphs") && e.getMessage().contains("ALL_NODES_ON_EP")
                && e.getMessage().contains("'mul' (Mul) on CPUExecutionProvider")
                && e.getMessage().contains("'relu' (Relu)"), e.getMessage());
    }

    @Test
    void allowCpuForShapesAcceptsTheCpuEpUnlessCopiesAreNeeded() {
        FakeEp hostMemory = new FakeEp("CaptureEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g, "add")))
                .capturing(1, GraphCapturePolicy.ALLOW_CPU_FOR_SHAPES);
        try (InferenceSession s = session(TestModels.addMulRelu(), hostMemory)) {
            assertEquals(List.of("CaptureEP", RuntimeEnvironment.CPU_EP), s.executionProviders());
        }
        FakeEp deviceMemory = new FakeEp("CaptureEP", (g, support) -> support.addNodesToFuse(FakeEp.nodes(g,
                "add"))).capturing(1, GraphCapturePolicy.ALLOW_CPU_FOR_SHAPES)
                .memory(new MemoryDevice(HardwareDeviceType.GPU, MemoryDevice.MemoryType.DEFAULT, 0, 0));
        OrtexException e = assertThrows(OrtexException.class, () -> session(TestModels.addMulRelu(), deviceMemory));
        assertTrue(e.getMessage().contains("ALLOW_CPU_FOR_SHAPES"), e.getMessage());
    }

    @Test
    void aCapturingEpThatRunsNothingIsRefused() {
        FakeEp nothing = new FakeEp("CaptureEP", (g, support) -> { })
                .capturing(1, GraphCapturePolicy.ALLOW_CPU_FOR_SHAPES);
        OrtexException e = assertThrows(OrtexException.class, () -> session(TestModels.addMulAdd(), nothing));
        assertTrue(e.getMessage().contains("it runs no node"), e.getMessage());
    }

    @Test
    void aGraphIdThatIsNotANumberIsRefusedByName() {
        try (InferenceSession s = session(TestModels.addMulAdd(), capturingAll(1))) {
            for (String bad : List.of("first", "-2", "1.5")) {
                InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                        () -> run(s, 1, new RunOptions().config(RunOptions.GRAPH_ID, bad)));
                assertTrue(e.getMessage().contains("gpu_graph_id") && e.getMessage().contains(bad), e.getMessage());
            }
        }
    }
}
