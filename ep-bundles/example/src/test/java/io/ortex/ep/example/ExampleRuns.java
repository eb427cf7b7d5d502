package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.HardwareDevice;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorComparison;
import io.ortex.runtime.internal.RuntimeEnvironment;
import io.ortex.runtime.internal.discovery.HardwareDiscovery;
import java.util.List;
import java.util.Map;

/**
 * Runs models through the real runtime for the example EP's tests: an environment with the CPU EP and the example EP
 * (its virtual NPU allowed), a session with the example EP appended before the CPU EP, or with the CPU EP alone. The
 * graph is not optimized, so that the EP sees the nodes the test built; what the runtime handed the example EP to
 * compile (its own group views) and the kernels it returned are kept.
 */
final class ExampleRuns {
    /** A context that runs everything on the calling thread, for tests that call a kernel or program directly. */
    static final KernelContext SEQUENTIAL = new KernelContext() {
        @Override
        public int intraOpThreads() {
            return 1;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            body.run(0, count);
        }
    };

    /**
     * What a run with the example EP did.
     *
     * @param outputs the graph outputs by name
     * @param groups the groups the example EP was given to compile, their nodes in graph order
     * @param graphs the runtime's views of those groups
     * @param kernels the example EP's kernels, one per group
     */
    record Result(Map<String, Tensor> outputs, List<List<NodeView>> groups, List<GraphView> graphs,
                  List<ComputeKernel> kernels) {
    }

    private static final Map<String, String> CONFIG = Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1");
    /** This machine's devices, discovered once for every run. */
    private static final List<HardwareDevice> HARDWARE = new HardwareDiscovery(CONFIG).discover();

    private ExampleRuns() {
    }

    private static RuntimeEnvironment environment(CountingExampleFactory example) {
        RuntimeEnvironment env = new RuntimeEnvironment(CONFIG, HARDWARE);
        env.registerFactories("cpu", List.of(new CpuEpFactory()), false);
        env.registerFactories("example", List.of(example), true);
        return env;
    }

    private static List<EpDevice> devices(Environment env, String ep) {
        return env.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
    }

    /**
     * Runs a model on the CPU EP alone.
     *
     * @param model the model
     * @param feeds its inputs
     * @return its outputs
     */
    static Map<String, Tensor> runOnCpu(OnnxModel model, Map<String, Tensor> feeds) {
        try (RuntimeEnvironment env = environment(new CountingExampleFactory(ExampleEpFactory.VERSION));
             Session s = env.createSession(model.proto().toByteArray(), new SessionOptions().intraOpThreads(1)
                     .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL)
                     .appendExecutionProvider(devices(env, CpuEpFactory.NAME), Map.of()))) {
            return s.run(feeds);
        }
    }

    /**
     * Runs a model with the example EP first and the CPU EP for the rest.
     *
     * @param model the model
     * @param feeds its inputs
     * @param fuse the example EP's {@code fuse} option
     * @param threads the session's intra-op threads
     * @return what the run did
     */
    static Result runWithExample(OnnxModel model, Map<String, Tensor> feeds, boolean fuse, int threads) {
        CountingExampleFactory example = new CountingExampleFactory(ExampleEpFactory.VERSION);
        try (RuntimeEnvironment env = environment(example);
             Session s = env.createSession(model.proto().toByteArray(), withExample(env, fuse, threads))) {
            Map<String, Tensor> outputs = s.run(feeds);
            List<List<NodeView>> groups = example.graphs.stream().map(GraphView::nodes).toList();
            return new Result(outputs, groups, List.copyOf(example.graphs), List.copyOf(example.kernels));
        }
    }

    /**
     * Creates a session with the example EP first, which compiles the groups it claims, and closes it.
     *
     * @param model the model
     * @param fuse the example EP's {@code fuse} option
     * @return what the EP compiled; no outputs
     */
    static Result compileWithExample(OnnxModel model, boolean fuse) {
        CountingExampleFactory example = new CountingExampleFactory(ExampleEpFactory.VERSION);
        try (RuntimeEnvironment env = environment(example);
             Session s = env.createSession(model.proto().toByteArray(), withExample(env, fuse, 1))) {
            List<List<NodeView>> groups = example.graphs.stream().map(GraphView::nodes).toList();
            return new Result(Map.of(), groups, List.copyOf(example.graphs), List.copyOf(example.kernels));
        }
    }

    /**
     * Runs a model with the example EP first, its {@code layout} option set, and the CPU EP for the rest.
     *
     * @param model the model
     * @param feeds its inputs
     * @param layout the example EP's {@code layout} option
     * @param assignment filled with the session's node assignment
     * @return what the run did
     */
    static Result runWithLayout(OnnxModel model, Map<String, Tensor> feeds, String layout,
                                List<NodeAssignment> assignment) {
        CountingExampleFactory example = new CountingExampleFactory(ExampleEpFactory.VERSION);
        try (RuntimeEnvironment env = environment(example);
             Session s = env.createSession(model.proto().toByteArray(), new SessionOptions().intraOpThreads(1)
                     .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL)
                     .appendExecutionProvider(devices(env, ExampleEpFactory.NAME),
                             Map.of(ExampleEpFactory.OPTION_LAYOUT, layout))
                     .appendExecutionProvider(devices(env, CpuEpFactory.NAME), Map.of()))) {
            assignment.addAll(s.assignment());
            Map<String, Tensor> outputs = s.run(feeds);
            List<List<NodeView>> groups = example.graphs.stream().map(GraphView::nodes).toList();
            return new Result(outputs, groups, List.copyOf(example.graphs), List.copyOf(example.kernels));
        }
    }

    private static SessionOptions withExample(Environment env, boolean fuse, int threads) {
        return new SessionOptions().intraOpThreads(threads)
                .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL)
                .appendExecutionProvider(devices(env, ExampleEpFactory.NAME),
                        Map.of(ExampleEpFactory.OPTION_FUSE, fuse ? "1" : "0"))
                .appendExecutionProvider(devices(env, CpuEpFactory.NAME), Map.of());
    }

    /**
     * Asserts that two runs' outputs agree within float rounding: 1e-5 relative, 1e-5 absolute.
     *
     * @param expected the reference outputs
     * @param actual the outputs to check
     */
    static void assertClose(Map<String, Tensor> expected, Map<String, Tensor> actual) {
        assertClose(expected, actual, 1e-5);
    }

    /**
     * Asserts that two runs' outputs agree within 1e-5 relative and {@code atol} absolute error; long dot products
     * summed in different orders differ by a few ulps of the sum of the terms' magnitudes, not of the result.
     *
     * @param expected the reference outputs
     * @param actual the outputs to check
     * @param atol the absolute tolerance
     */
    static void assertClose(Map<String, Tensor> expected, Map<String, Tensor> actual, double atol) {
        assertEquals(expected.keySet(), actual.keySet());
        for (Map.Entry<String, Tensor> e : expected.entrySet()) {
            assertNull(TensorComparison.difference(e.getValue(), actual.get(e.getKey()), 1e-5, atol),
                    "output " + e.getKey());
        }
    }
}
