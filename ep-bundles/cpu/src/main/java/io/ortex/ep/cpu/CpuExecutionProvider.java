package io.ortex.ep.cpu;

import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.NotImplementedException;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimitException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.fusion.FusionMatch;
import io.ortex.ep.cpu.fusion.Fusions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CPU execution provider for one session. It claims each node it has a kernel for as a single node and compiles
 * it into a {@link CpuKernel}; the runtime schedules the nodes. At graph optimization level {@code EXTENDED} and
 * above (unless {@code optimization.disable_specified_optimizers} names {@code CpuFusions}) it first claims the
 * patterns {@link Fusions} finds as fused groups, each compiled into one {@link FusedGroupKernel}; a group that an
 * earlier EP took part of is dropped by the runtime, and the single-node claims that follow cover its nodes.
 */
final class CpuExecutionProvider implements ExecutionProvider {
    private final String name;
    private final OpRegistry registry;
    private final boolean fuse;
    /** The fusions claimed by getCapability, by each of their nodes. */
    private final Map<NodeView, FusionMatch> fused = Collections.synchronizedMap(new IdentityHashMap<>());

    CpuExecutionProvider(String name, OpRegistry registry, boolean fuse) {
        this.name = name;
        this.registry = registry;
        this.fuse = fuse;
    }

    /**
     * Whether a session's configuration asks for the CPU EP's fusions.
     *
     * @param sessionConfig the session configuration
     * @return true at level EXTENDED or ALL unless {@code CpuFusions} is disabled
     */
    static boolean fusionsWanted(Map<String, String> sessionConfig) {
        GraphOptimizationLevel level = GraphOptimizationLevel.parse(sessionConfig.getOrDefault(
                SessionOptions.GRAPH_OPTIMIZATION_LEVEL, SessionOptions.GRAPH_OPTIMIZATION_LEVEL_DEFAULT));
        if (level.compareTo(GraphOptimizationLevel.EXTENDED) < 0) {
            return false;
        }
        for (String part : sessionConfig.getOrDefault(SessionOptions.DISABLE_SPECIFIED_OPTIMIZERS, "").split(",")) {
            if (part.trim().equals(Fusions.OPTIMIZER_NAME)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void getCapability(GraphView graph, GraphSupport support) {
        if (fuse) {
            for (FusionMatch m : Fusions.find(graph)) {
                if (m.nodes().stream().allMatch(n -> registry.lookup(n) != null)) {
                    support.addNodesToFuse(m.nodes(), new FusionOptions(m.dropConstants()));
                    m.nodes().forEach(n -> fused.put(n, m));
                }
            }
        }
        for (NodeView node : graph.nodes()) {
            if (registry.lookup(node) != null) {
                support.addSingleNode(node);
            }
        }
    }

    @Override
    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
        List<ComputeKernel> kernels = new ArrayList<>(graphs.size());
        for (int i = 0; i < graphs.size(); i++) {
            GraphView g = graphs.get(i);
            if (g.nodes().size() == 1 && !isFusionOfOne(g.nodes().get(0))) {
                kernels.add(compileNode(g.nodes().get(0), fusedNodes.get(i)));
            } else {
                kernels.add(compileFused(g, fusedNodes.get(i)));
            }
        }
        return kernels;
    }

    /**
     * Whether a node was claimed as a fusion of its own (its single-node claim came second); a node of a larger
     * fusion that the runtime dropped is compiled on its own.
     */
    private boolean isFusionOfOne(NodeView node) {
        FusionMatch m = fused.get(node);
        return m != null && m.nodes().size() == 1;
    }

    private ComputeKernel compileNode(NodeView node, FusedNode fused) {
        KernelFactory factory = registry.lookup(node);
        if (factory == null) {
            throw new NotImplementedException(describe(node) + " has no CPU kernel at opset " + node.opsetVersion());
        }
        CpuKernel kernel;
        try {
            kernel = factory.create(node);
        } catch (OrtexException e) {
            throw prefixed(e, node);
        } catch (RuntimeException e) {
            throw new InvalidModelException(io.ortex.api.ErrorCode.INVALID_GRAPH, describe(node) + ": "
                    + e.getMessage(), e);
        }
        List<ValueView> kernelInputs = node.inputs();
        if (!node.implicitInputs().isEmpty()) {
            // control-flow nodes: the outer-scope values their subgraphs read follow the regular inputs
            kernelInputs = new ArrayList<>(node.inputs());
            kernelInputs.addAll(node.implicitInputs());
        }
        int[] inputSlots = slots(kernelInputs, fused.inputNames());
        int[] outputSlots = slots(node.outputs(), fused.outputNames());
        return new NodeKernel(node, kernel, inputSlots, outputSlots, fused.outputNames().size());
    }

    /**
     * Compiles a group claimed as a fusion: the fusion's fast path, and the nodes' own kernels behind it, created
     * the first time the fast path declines an input (most groups never need them, and a weight they would prepare is
     * not held twice). The match is forgotten once compiled, so that what it decoded to match is not held either.
     */
    private ComputeKernel compileFused(GraphView group, FusedNode node) {
        FusionMatch m = fused.get(group.nodes().get(0));
        if (m == null || m.nodes().size() != group.nodes().size() || !m.nodes().containsAll(group.nodes())) {
            throw new IllegalArgumentException("the CPU EP did not claim the group of " + group.nodes().size()
                    + " nodes starting at " + describe(group.nodes().get(0)));
        }
        m.nodes().forEach(fused::remove);
        return new FusedGroupKernel(m.fusion(), m.kernel().create(node.inputNames(), node.outputNames()),
                group.nodes(), this::createKernel, node.inputNames(), node.outputNames());
    }

    /** Creates a node's own kernel, naming the node in any error. */
    private CpuKernel createKernel(NodeView n) {
        KernelFactory factory = registry.lookup(n);
        try {
            return factory.create(n);
        } catch (OrtexException e) {
            throw prefixed(e, n);
        } catch (RuntimeException e) {
            throw new InvalidModelException(io.ortex.api.ErrorCode.INVALID_GRAPH, describe(n) + ": "
                    + e.getMessage(), e);
        }
    }

    /** For each node input (or output), its position among the fused node's inputs (outputs), or -1. */
    private static int[] slots(List<ValueView> values, List<String> fusedNames) {
        int[] slots = new int[values.size()];
        for (int i = 0; i < slots.length; i++) {
            ValueView v = values.get(i);
            slots[i] = v == null ? -1 : fusedNames.indexOf(v.name());
        }
        return slots;
    }

    static String describe(NodeView node) {
        return "node " + Names.quote(node.displayName()) + " (" + (node.domain().isEmpty() ? "" : node.domain() + "::")
                + node.opType() + ")";
    }

    private static OrtexException prefixed(OrtexException e, NodeView node) {
        String prefix = describe(node);
        if (e.getMessage() != null && e.getMessage().startsWith(prefix)) {
            return e;
        }
        return new OrtexException(e.code(), prefix + ": " + e.getMessage(), e);
    }

    /** Adapts a node kernel to the fused node's input and output order. */
    private static final class NodeKernel implements ComputeKernel {
        private final NodeView node;
        private final CpuKernel kernel;
        private final int[] inputSlots;
        private final int[] outputSlots;
        private final int outputCount;

        NodeKernel(NodeView node, CpuKernel kernel, int[] inputSlots, int[] outputSlots, int outputCount) {
            this.node = node;
            this.kernel = kernel;
            this.inputSlots = inputSlots;
            this.outputSlots = outputSlots;
            this.outputCount = outputCount;
        }

        @Override
        public Tensor[] compute(KernelContext context, Tensor[] inputs) {
            Tensor[] nodeInputs = new Tensor[inputSlots.length];
            for (int i = 0; i < nodeInputs.length; i++) {
                nodeInputs[i] = inputSlots[i] < 0 ? null : inputs[inputSlots[i]];
            }
            Tensor[] nodeOutputs;
            try {
                nodeOutputs = kernel.run(nodeInputs, context);
            } catch (ResourceLimitException e) {
                throw new ResourceLimitException(e.code(), describe(node) + ": " + e.getMessage(), e.limitKey());
            } catch (OrtexException e) {
                throw prefixed(e, node);
            } catch (RuntimeException e) {
                throw new OrtexException(io.ortex.api.ErrorCode.RUNTIME_EXCEPTION, describe(node) + " failed: "
                        + e, e);
            } catch (OutOfMemoryError e) {
                // an allocation the memory check could not foresee failed, and holds nothing
                throw new ResourceLimitException(io.ortex.api.ErrorCode.RUNTIME_EXCEPTION, describe(node)
                        + " ran out of memory (" + e.getMessage() + "); give the JVM more heap (-Xmx) or limit the run"
                        + " (" + ResourceLimits.RUN_BYTES + ")", null);
            }
            Tensor[] out = new Tensor[outputCount];
            for (int i = 0; i < outputSlots.length && i < nodeOutputs.length; i++) {
                if (outputSlots[i] >= 0) {
                    out[outputSlots[i]] = nodeOutputs[i];
                }
            }
            return out;
        }
    }
}
