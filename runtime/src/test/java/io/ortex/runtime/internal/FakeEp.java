package io.ortex.runtime.internal;

import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphCapturePolicy;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * A test EP whose claims are given by the test, and whose kernels interpret Add, Mul and Relu on float tensors
 * themselves (the smaller operand of a binary op repeats along the larger, enough for trailing-axis broadcasting).
 * It records what it was asked to compile and the tensors its kernels received; it can work in another memory
 * device, refuse concurrent runs, run a hook at the start of every compute, and it counts calls it receives after
 * {@link CountingEpFactory#releaseEp} released it.
 */
final class FakeEp implements ExecutionProvider {
    private final String name;
    private final BiConsumer<GraphView, GraphSupport> claims;
    final List<GraphView> compiledGraphs = new ArrayList<>();
    final List<FusedNode> compiledNodes = new ArrayList<>();
    final AtomicInteger computeCalls = new AtomicInteger();
    final List<Tensor> inputsSeen = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger callsAfterRelease = new AtomicInteger();
    volatile boolean released;
    private MemoryDevice memory = MemoryDevice.CPU;
    private boolean concurrentRuns = true;
    private volatile Runnable onCompute = () -> { };
    private OptionalLong availableMemory = OptionalLong.empty();
    private int captureAfter = -1;
    private GraphCapturePolicy capturePolicy = GraphCapturePolicy.ALL_NODES_ON_EP;
    private volatile Interpreter lastKernel;
    final Map<Integer, Integer> runsEnded = new ConcurrentHashMap<>();
    final Set<Integer> captured = ConcurrentHashMap.newKeySet();
    final AtomicInteger replays = new AtomicInteger();

    FakeEp(String name, BiConsumer<GraphView, GraphSupport> claims) {
        this.name = name;
        this.claims = claims;
    }

    /** Reports this much memory for the session's weights ({@link #availableMemoryBytes}). */
    FakeEp availableMemory(long bytes) {
        availableMemory = OptionalLong.of(bytes);
        return this;
    }

    @Override
    public OptionalLong availableMemoryBytes() {
        return availableMemory;
    }

    /**
     * Captures graphs: a graph id counts as captured once this many runs with it have ended; a replay runs the last
     * compiled group on the session's inputs.
     */
    FakeEp capturing(int afterRuns, GraphCapturePolicy policy) {
        captureAfter = afterRuns;
        capturePolicy = policy;
        return this;
    }

    @Override
    public boolean isGraphCaptureEnabled() {
        return captureAfter >= 0;
    }

    @Override
    public GraphCapturePolicy graphCapturePolicy() {
        return capturePolicy;
    }

    @Override
    public boolean isGraphCaptured(int graphId) {
        return captured.contains(graphId);
    }

    @Override
    public Map<String, Tensor> replayGraph(int graphId, Map<String, Tensor> inputs) {
        check();
        if (!captured.contains(graphId)) {
            throw new IllegalStateException("graph " + graphId + " is not captured");
        }
        replays.incrementAndGet();
        Interpreter k = lastKernel;
        Tensor[] in = new Tensor[k.inputs.size()];
        for (int i = 0; i < in.length; i++) {
            in[i] = inputs.get(k.inputs.get(i));
        }
        Tensor[] out = k.evaluate(in);
        Map<String, Tensor> result = new HashMap<>();
        for (int i = 0; i < out.length; i++) {
            result.put(k.outputs.get(i), out[i]);
        }
        return result;
    }

    /** Finds a node of a graph by name. */
    static NodeView node(GraphView graph, String nodeName) {
        return graph.nodes().stream().filter(n -> n.name().equals(nodeName)).findFirst().orElseThrow();
    }

    /** Finds nodes of a graph by name, in the given order. */
    static List<NodeView> nodes(GraphView graph, String... nodeNames) {
        List<NodeView> out = new ArrayList<>();
        for (String n : nodeNames) {
            out.add(node(graph, n));
        }
        return out;
    }

    /** Makes the EP's kernels work in another memory device. */
    FakeEp memory(MemoryDevice device) {
        this.memory = device;
        return this;
    }

    /** Sets what {@link #isConcurrentRunSupported()} answers. */
    FakeEp concurrentRuns(boolean supported) {
        this.concurrentRuns = supported;
        return this;
    }

    /** Runs a hook at the start of every compute, on the run's thread. */
    FakeEp onCompute(Runnable hook) {
        this.onCompute = hook;
        return this;
    }

    private void check() {
        if (released) {
            callsAfterRelease.incrementAndGet();
        }
    }

    @Override
    public String name() {
        check();
        return name;
    }

    @Override
    public MemoryDevice memoryDevice() {
        check();
        return memory;
    }

    @Override
    public boolean isConcurrentRunSupported() {
        check();
        return concurrentRuns;
    }

    @Override
    public void setDynamicOptions(Map<String, String> options) {
        check();
    }

    @Override
    public void onRunStart(Map<String, String> runConfig) {
        check();
    }

    @Override
    public void onRunEnd(Map<String, String> runConfig) {
        check();
        if (captureAfter >= 0) {
            int id = Integer.parseInt(runConfig.getOrDefault("gpu_graph_id", "0"));
            if (id != -1 && runsEnded.merge(id, 1, Integer::sum) >= captureAfter) {
                captured.add(id);
            }
        }
    }

    @Override
    public void getCapability(GraphView graph, GraphSupport support) {
        check();
        claims.accept(graph, support);
    }

    @Override
    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
        check();
        compiledGraphs.addAll(graphs);
        compiledNodes.addAll(fusedNodes);
        List<ComputeKernel> kernels = new ArrayList<>();
        for (int i = 0; i < graphs.size(); i++) {
            lastKernel = new Interpreter(graphs.get(i), fusedNodes.get(i));
            kernels.add(lastKernel);
        }
        return kernels;
    }

    /** Runs a group's nodes one after the other on float arrays. */
    private final class Interpreter implements ComputeKernel {
        private final List<NodeView> nodes;
        private final List<String> inputs;
        private final List<String> outputs;
        private final Map<String, Tensor> constants = new HashMap<>();

        Interpreter(GraphView graph, FusedNode fused) {
            this.nodes = graph.nodes();
            this.inputs = fused.inputNames();
            this.outputs = fused.outputNames();
            for (NodeView n : nodes) {
                for (ValueView v : n.inputs()) {
                    if (v.isConstantInitializer()) {
                        constants.put(v.name(), v.initializer().orElseThrow());
                    }
                }
            }
        }

        @Override
        public Tensor[] compute(KernelContext context, Tensor[] in) {
            check();
            computeCalls.incrementAndGet();
            onCompute.run();
            inputsSeen.addAll(Arrays.asList(in));
            return evaluate(in);
        }

        Tensor[] evaluate(Tensor[] in) {
            Map<String, Tensor> values = new HashMap<>(constants);
            for (int i = 0; i < in.length; i++) {
                values.put(inputs.get(i), in[i]);
            }
            for (NodeView n : nodes) {
                Tensor a = values.get(n.inputs().get(0).name());
                Tensor result;
                if (n.opType().equals("Relu")) {
                    float[] x = a.floats();
                    float[] r = new float[x.length];
                    for (int k = 0; k < r.length; k++) {
                        r[k] = Math.max(0f, x[k]);
                    }
                    result = Tensor.ofFloats(r, a.shape());
                } else {
                    Tensor b = values.get(n.inputs().get(1).name());
                    Tensor big = a.size() >= b.size() ? a : b;
                    float[] x = a.floats();
                    float[] y = b.floats();
                    float[] r = new float[big.size()];
                    for (int k = 0; k < r.length; k++) {
                        float u = x[k % x.length];
                        float w = y[k % y.length];
                        r[k] = n.opType().equals("Add") ? u + w : u * w;
                    }
                    result = Tensor.ofFloats(r, big.shape());
                }
                values.put(n.outputs().get(0).name(), result);
            }
            Tensor[] out = new Tensor[outputs.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = values.get(outputs.get(i));
            }
            return out;
        }
    }
}
