package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorComparison;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * A minimal stand-in for the runtime, so the EP's tests do not depend on it: partitions a model between the example
 * EP (its claimed groups, compiled) and the CPU EP (every other node, one by one), then runs the units in a
 * dependency order.
 */
final class MiniSession {
    /** A context that runs everything on the calling thread. */
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

    /** A context that really splits work over four chunks on the common pool. */
    static final KernelContext PARALLEL = new KernelContext() {
        @Override
        public int intraOpThreads() {
            return 4;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            int chunks = Math.max(1, Math.min(4, count / Math.max(1, minChunk)));
            IntStream.range(0, chunks).parallel().forEach(c -> body.run((int) ((long) count * c / chunks),
                    (int) ((long) count * (c + 1) / chunks)));
        }
    };

    /** One compiled unit: a kernel with its input and output names. */
    private record Unit(ComputeKernel kernel, List<String> inputs, List<String> outputs) {
    }

    /**
     * What a run with the example EP did.
     *
     * @param outputs the graph outputs by name
     * @param groups the groups the example EP claimed
     * @param kernels the example EP's kernels, one per group
     */
    record Result(Map<String, Tensor> outputs, List<List<NodeView>> groups, List<ComputeKernel> kernels) {
    }

    private MiniSession() {
    }

    /** Runs a model on the CPU EP alone. */
    static Map<String, Tensor> runOnCpu(OnnxModel model, Map<String, Tensor> feeds) {
        return run(model, feeds, null, SEQUENTIAL).outputs();
    }

    /** Runs a model with the example EP first and the CPU EP for the rest. */
    static Result runWithExample(OnnxModel model, Map<String, Tensor> feeds, ExecutionProvider example,
                                 KernelContext context) {
        return run(model, feeds, example, context);
    }

    private static Result run(OnnxModel model, Map<String, Tensor> feeds, ExecutionProvider example,
                              KernelContext context) {
        GraphView graph = model.graph();
        List<Unit> units = new ArrayList<>();
        Set<NodeView> taken = new HashSet<>();
        List<List<NodeView>> groups = List.of();
        List<ComputeKernel> exampleKernels = List.of();
        if (example != null) {
            RecordingSupport support = new RecordingSupport();
            example.getCapability(graph, support);
            groups = support.groups;
            List<GraphView> views = new ArrayList<>();
            List<io.ortex.api.spi.FusedNode> fused = new ArrayList<>();
            for (int i = 0; i < groups.size(); i++) {
                GroupGraph view = new GroupGraph(graph, groups.get(i), support.options.get(i));
                views.add(view);
                fused.add(TestFusedNode.of("example_" + i, view));
                taken.addAll(groups.get(i));
            }
            exampleKernels = example.compile(views, fused);
            for (int i = 0; i < groups.size(); i++) {
                units.add(new Unit(exampleKernels.get(i), fused.get(i).inputNames(), fused.get(i).outputNames()));
            }
        }
        ExecutionProvider cpu = new CpuEpFactory().createEp(List.of(), Map.of());
        for (NodeView node : graph.nodes()) {
            if (!taken.contains(node)) {
                GroupGraph view = new GroupGraph(graph, List.of(node), FusionOptions.DEFAULT);
                TestFusedNode fused = TestFusedNode.of("cpu_" + node.name(), view);
                units.add(new Unit(cpu.compile(List.of(view), List.of(fused)).get(0), fused.inputNames(),
                        fused.outputNames()));
            }
        }
        Map<String, Tensor> values = new HashMap<>(feeds);
        for (ValueView init : graph.initializers()) {
            values.putIfAbsent(init.name(), init.initializer().orElseThrow());
        }
        execute(units, values, context);
        Map<String, Tensor> outputs = new LinkedHashMap<>();
        for (ValueView o : graph.outputs()) {
            outputs.put(o.name(), values.get(o.name()));
        }
        return new Result(outputs, groups, exampleKernels);
    }

    private static void execute(List<Unit> units, Map<String, Tensor> values, KernelContext context) {
        List<Unit> pending = new ArrayList<>(units);
        while (!pending.isEmpty()) {
            Unit ready = pending.stream().filter(u -> values.keySet().containsAll(u.inputs())).findFirst()
                    .orElseThrow(() -> new AssertionError("no unit can run: the partition has a cycle"));
            pending.remove(ready);
            Tensor[] in = ready.inputs().stream().map(values::get).toArray(Tensor[]::new);
            Tensor[] out = ready.kernel().compute(context, in);
            for (int i = 0; i < ready.outputs().size(); i++) {
                values.put(ready.outputs().get(i), out[i]);
            }
        }
    }

    /** Asserts that two runs' outputs agree within float rounding: 1e-5 relative, 1e-5 absolute. */
    static void assertClose(Map<String, Tensor> expected, Map<String, Tensor> actual) {
        assertClose(expected, actual, 1e-5);
    }

    /**
     * Asserts that two runs' outputs agree within 1e-5 relative and {@code atol} absolute error; long dot products
     * summed in different orders differ by a few ulps of the sum of the terms' magnitudes, not of the result.
     */
    static void assertClose(Map<String, Tensor> expected, Map<String, Tensor> actual, double atol) {
        assertEquals(expected.keySet(), actual.keySet());
        for (Map.Entry<String, Tensor> e : expected.entrySet()) {
            assertNull(TensorComparison.difference(e.getValue(), actual.get(e.getKey()), 1e-5, atol),
                    "output " + e.getKey());
        }
    }
}
