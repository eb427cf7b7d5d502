package io.ortex.ep.example;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import java.util.ArrayList;
import java.util.List;

/**
 * The example EP for one session: it claims groups of supported nodes ({@link FusionPlanner}) and compiles each
 * group into a {@link io.ortex.ep.example.program.Program} that a {@link ProgramKernel} runs. Kernels may run
 * concurrently. The EP itself is used by the runtime from one thread at a time during session creation.
 */
final class ExampleExecutionProvider implements ExecutionProvider {
    /**
     * The fusion options of every group: constant initializers are dropped from the fused nodes' inputs, since
     * {@link #compile} copies and packs them into the program, as an NPU EP uploads its weights once.
     */
    static final FusionOptions FUSION_OPTIONS = new FusionOptions(true);

    private final boolean fuseRelu;

    /**
     * Creates the EP.
     *
     * @param fuseRelu whether compiled programs fold each Relu into the op before it
     */
    ExampleExecutionProvider(boolean fuseRelu) {
        this.fuseRelu = fuseRelu;
    }

    @Override
    public String name() {
        return ExampleEpFactory.NAME;
    }

    /**
     * Gets whether Relu folding is on (EP option {@code fuse}).
     *
     * @return true when Relu nodes are folded into the instruction before them
     */
    boolean fuseRelu() {
        return fuseRelu;
    }

    /** Claims each convex group of supported nodes with one {@code addNodesToFuse} call. */
    @Override
    public void getCapability(GraphView graph, GraphSupport support) {
        for (List<NodeView> group : FusionPlanner.plan(graph)) {
            support.addNodesToFuse(group, FUSION_OPTIONS);
        }
    }

    /** Compiles each group into a program; the graphs are not kept, the fused nodes' names are. */
    @Override
    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
        if (graphs.size() != fusedNodes.size()) {
            throw new InvalidArgumentException(graphs.size() + " graphs but " + fusedNodes.size() + " fused nodes");
        }
        ProgramCompiler compiler = new ProgramCompiler(fuseRelu);
        List<ComputeKernel> kernels = new ArrayList<>(graphs.size());
        for (int i = 0; i < graphs.size(); i++) {
            FusedNode fused = fusedNodes.get(i);
            kernels.add(new ProgramKernel(fused.name(), compiler.compile(graphs.get(i), fused)));
        }
        return kernels;
    }

    @Override
    public String toString() {
        return name() + (fuseRelu ? " (Relu folding on)" : "");
    }
}
