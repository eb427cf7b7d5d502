package io.ortex.ep.example;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.LayoutConversion;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.example.program.Program;
import io.ortex.ep.example.program.ProgramCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
    private final boolean shareWeights;
    private final DataLayout layout;
    private final boolean deviceMemory;

    /**
     * Creates the EP, its payloads holding their weights, preferring NHWC.
     *
     * @param fuseRelu whether compiled programs fold each Relu into the op before it
     */
    ExampleExecutionProvider(boolean fuseRelu) {
        this(fuseRelu, false, DataLayout.NHWC);
    }

    /**
     * Creates the EP.
     *
     * @param fuseRelu whether compiled programs fold each Relu into the op before it
     * @param shareWeights whether EPContext payloads give their packed weights as shared blobs (the session shares
     *     EP contexts)
     * @param layout the layout the EP prefers for Conv (EP option {@code layout})
     */
    ExampleExecutionProvider(boolean fuseRelu, boolean shareWeights, DataLayout layout) {
        this(fuseRelu, shareWeights, layout, false);
    }

    /**
     * Creates the EP.
     *
     * @param fuseRelu whether compiled programs fold each Relu into the op before it
     * @param shareWeights whether EPContext payloads give their packed weights as shared blobs
     * @param layout the layout the EP prefers for Conv (EP option {@code layout})
     * @param deviceMemory whether its partitions work in the emulated NPU's own memory (EP option {@code memory})
     */
    ExampleExecutionProvider(boolean fuseRelu, boolean shareWeights, DataLayout layout, boolean deviceMemory) {
        this.fuseRelu = fuseRelu;
        this.shareWeights = shareWeights;
        this.layout = layout;
        this.deviceMemory = deviceMemory;
    }

    /**
     * Works in the emulated NPU's memory ({@code ExampleNpu}) with the EP option {@code memory=device}, else in
     * host memory.
     */
    @Override
    public MemoryDevice memoryDevice() {
        return deviceMemory ? DeviceMemory.NPU_MEMORY : MemoryDevice.CPU;
    }

    /**
     * Prefers NHWC unless the EP option {@code layout} says NCHW: an NPU's convolution engine typically reads
     * channels-last data, so the runtime hands the EP its Conv nodes in the NHWC domain with the transposes around
     * them, which cancel between consecutive Convs.
     */
    @Override
    public DataLayout preferredDataLayout() {
        return layout;
    }

    /**
     * Converts Conv, the one layout-sensitive op the EP implements in NHWC, and keeps every other op as it is: the EP
     * has no channels-last kernel for the other layout-sensitive ops, and claims none of them anyway.
     */
    @Override
    public LayoutConversion shouldConvertDataLayout(String domain, String opType, DataLayout target) {
        boolean onnx = domain.isEmpty() || domain.equals("ai.onnx");
        return target == DataLayout.NHWC && onnx && opType.equals("Conv") ? LayoutConversion.CONVERT
                : LayoutConversion.KEEP;
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

    /**
     * Claims each EPContext node whose {@code source} is this EP's name, alone, and each convex group of supported
     * nodes with one {@code addNodesToFuse} call.
     */
    @Override
    public void getCapability(GraphView graph, GraphSupport support) {
        for (NodeView node : graph.nodes()) {
            if (EpContextNode.sourceOf(node).filter(ExampleEpFactory.NAME::equals).isPresent()) {
                support.addNodesToFuse(List.of(node), FUSION_OPTIONS);
            }
        }
        for (List<NodeView> group : FusionPlanner.plan(graph)) {
            support.addNodesToFuse(group, FUSION_OPTIONS);
        }
    }

    /**
     * Compiles each group into a program; the graphs are not kept, the fused nodes' names are. A group that is one
     * EPContext node is not compiled: its program is read back from the payload ({@link ProgramCodec}), weights
     * already packed.
     */
    @Override
    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
        if (graphs.size() != fusedNodes.size()) {
            throw new InvalidArgumentException(graphs.size() + " graphs but " + fusedNodes.size() + " fused nodes");
        }
        ProgramCompiler compiler = new ProgramCompiler(fuseRelu);
        List<ComputeKernel> kernels = new ArrayList<>(graphs.size());
        for (int i = 0; i < graphs.size(); i++) {
            FusedNode fused = fusedNodes.get(i);
            GraphView graph = graphs.get(i);
            Program program = isEpContext(graph) ? load(graph, fused) : compiler.compile(graph, fused);
            ProgramKernel kernel = new ProgramKernel(fused.name(), program, shareWeights);
            kernels.add(deviceMemory ? new DeviceMemoryKernel(fused.name(), kernel) : kernel);
        }
        return kernels;
    }

    private static boolean isEpContext(GraphView graph) {
        return graph.nodes().size() == 1 && EpContextNode.isEpContext(graph.nodes().get(0));
    }

    /** Reads the program of an EPContext node, checking that it takes and gives what the fused node does. */
    private static Program load(GraphView graph, FusedNode fused) {
        EpContextNode node = graph.epContext(graph.nodes().get(0));
        Program program;
        try {
            program = ProgramCodec.read(node.payload(), key -> node.sharedBlob(key).orElseThrow(() ->
                    new IllegalArgumentException("the node lists no shared blob " + key)));
        } catch (InvalidModelException e) {
            throw new InvalidModelException("EPContext node " + Names.quote(node.name()) + ": its payload is "
                    + e.getMessage());
        }
        if (!program.inputNames().equals(fused.inputNames()) || !program.outputNames().equals(fused.outputNames())) {
            throw new InvalidModelException("EPContext node " + Names.quote(node.name()) + ": its program takes "
                    + program.inputNames() + " and gives " + program.outputNames() + ", but the node has inputs "
                    + fused.inputNames() + " and outputs " + fused.outputNames());
        }
        return program;
    }

    /** Describes what programs are compiled for: {@code ExampleExecutionProvider;version=<EP>;format=<format>}. */
    @Override
    public Optional<String> compatibilityInfo(GraphView graph) {
        return Optional.of(ExampleEpFactory.compatibilityInfo());
    }

    @Override
    public String toString() {
        return name() + " (" + layout + (fuseRelu ? ", Relu folding on" : "") + (deviceMemory ? ", device memory)"
                : ")");
    }
}
