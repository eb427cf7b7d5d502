package io.ortex.api.spi;

import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An execution provider instance owned by one session, the counterpart of ONNX Runtime's {@code OrtEp}.
 *
 * <p>During session creation the runtime calls {@link #getCapability} for the main graph and each nested
 * subgraph, then {@link #compile} once for the groups it assigned to this EP. The kernels it returns are called
 * from the session's run threads, concurrently unless {@link #isConcurrentRunSupported()} says otherwise.
 */
public interface ExecutionProvider {
    /**
     * Gets the EP name used in node assignments and fused-node names; normally the factory's name. Mirrors ONNX
     * Runtime's {@code OrtEp::GetName}.
     *
     * @return the name
     */
    String name();

    /**
     * Reports which nodes of a graph this EP takes, through {@code support}. Nodes already taken by an EP earlier
     * in the session's priority order are refused when claimed. Throwing makes the EP claim nothing in this graph.
     * Mirrors ONNX Runtime's {@code OrtEp::GetCapability}.
     *
     * <p>When an EP of the session prefers NHWC ({@link #preferredDataLayout()}), the runtime asks every EP twice for
     * the main graph, as ONNX Runtime does: once on the model's graph, then again on the graph whose claimed
     * layout-sensitive nodes it converted (see {@link DataLayout}); only the second answer counts.
     *
     * @param graph the graph (main graph or a nested subgraph), valid only during the call
     * @param support where to report the nodes
     */
    void getCapability(GraphView graph, GraphSupport support);

    /**
     * Compiles the groups assigned to this EP into kernels, one per group. Mirrors ONNX Runtime's
     * {@code OrtEp::Compile}.
     *
     * <p>EPContext (pre-compiled models): when the session writes a compiled model ({@code ep.context_enable=1} in
     * the session configuration), the runtime then asks each kernel for its {@link ComputeKernel#epContext()}
     * payload. When loading a compiled model, a group may be a single {@code EPContext} node that this EP claimed
     * because its {@code source} is this EP's name ({@link EpContextNode#sourceOf}); the EP reads it with
     * {@link GraphView#epContext(NodeView)} and rebuilds the kernel from the payload instead of compiling nodes.
     *
     * @param graphs one graph per group, holding just the group's nodes; its inputs are what the group consumes
     *     from outside and its outputs what others consume, in the order the kernel receives and returns them
     * @param fusedNodes the fused node that replaces each group in the session's graph, same order
     * @return one kernel per group, same order
     */
    List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes);

    /**
     * Gets the EP's per-op kernels, if it registers any. Mirrors ONNX Runtime's {@code OrtEp::GetKernelRegistry}.
     * A node this EP claims on its own ({@link GraphSupport#addSingleNode}) then runs through the registered kernel
     * that matches it ({@link KernelRegistry}) within the session's plan, and the session fails naming the node when
     * none does; groups of several nodes are still compiled. Called once per session, after the EP is created.
     * Added in package version 0.6.0. Default: none, every claim is compiled.
     *
     * @return the registry, or empty
     */
    default Optional<KernelRegistry> kernelRegistry() {
        return Optional.empty();
    }

    /**
     * Tells whether kernels of this EP may run on several threads at once. Mirrors ONNX Runtime's
     * {@code OrtEp::IsConcurrentRunSupported}. Default: true.
     *
     * @return true when concurrent runs are safe
     */
    default boolean isConcurrentRunSupported() {
        return true;
    }

    /**
     * Gets the layout the EP prefers. Mirrors ONNX Runtime's {@code OrtEp::GetPreferredDataLayout}. For an EP that
     * prefers {@link DataLayout#NHWC}, the runtime converts the layout-sensitive nodes the EP claimed in the main
     * graph to the domain {@value DataLayout#NHWC_DOMAIN}, with {@code Transpose} nodes around them, each as
     * {@link #shouldConvertDataLayout} decides, and asks for the capabilities again (see {@link DataLayout}). Nested
     * subgraphs keep ONNX's layout. When no EP of a session prefers NHWC, the graph is not touched. Default: NCHW.
     *
     * @return the preferred layout
     */
    default DataLayout preferredDataLayout() {
        return DataLayout.NCHW;
    }

    /**
     * Tells whether the runtime should convert the nodes of one op to a layout. Mirrors ONNX Runtime's
     * {@code OrtEp::ShouldConvertDataLayoutForOp}: called during the layout conversion, once per node this EP
     * claimed, with {@code target} the EP's {@link #preferredDataLayout()}. {@link LayoutConversion#CONVERT} also
     * converts an op the runtime does not know as layout-sensitive (its first input and output change layout);
     * {@link LayoutConversion#KEEP} leaves the node as it is, in ONNX's layout. Called from the thread that creates
     * the session. Default: {@link LayoutConversion#RUNTIME_DECIDES}.
     *
     * @param domain the op's domain, {@code ""} for the default ONNX domain
     * @param opType the op type, such as {@code Conv}
     * @param target the layout the node would be converted to
     * @return the decision
     */
    default LayoutConversion shouldConvertDataLayout(String domain, String opType, DataLayout target) {
        return LayoutConversion.RUNTIME_DECIDES;
    }

    /**
     * Gets the memory the EP's kernels read and write, as the memory info ONNX Runtime's EPs register for their
     * devices ({@code OrtEpApi::EpDevice_AddAllocatorInfo}). Default: host memory. The runtime gives the EP's
     * partitions their inputs in this memory, copying them in through the factory's {@link DataTransfer} where they
     * were produced elsewhere, and takes their outputs as being there; where the factory implements
     * {@link EpMemory}, this must be the device of one of its {@link MemoryInfo.Kind#DEVICE} memories.
     *
     * @return the memory device
     */
    default MemoryDevice memoryDevice() {
        return MemoryDevice.CPU;
    }

    /**
     * Takes options after session creation ({@link io.ortex.api.Session#setEpDynamicOptions}). Keys the EP does not
     * know are ignored. Mirrors ONNX Runtime's {@code OrtEp::SetDynamicOptions}. Default: ignores all.
     *
     * @param options the options
     */
    default void setDynamicOptions(Map<String, String> options) {
    }

    /**
     * Called before each run of the session. Mirrors ONNX Runtime's {@code OrtEp::OnRunStart}. Default: nothing.
     *
     * @param runConfig the run's configuration entries
     */
    default void onRunStart(Map<String, String> runConfig) {
    }

    /**
     * Called after each run of the session, also when it failed. Mirrors ONNX Runtime's {@code OrtEp::OnRunEnd}.
     * Default: nothing.
     *
     * @param runConfig the run's configuration entries
     */
    default void onRunEnd(Map<String, String> runConfig) {
    }

    /**
     * Called after each run of the session, also when it failed, the counterpart of {@code OrtEp::OnRunEnd} with its
     * {@code sync_stream} flag; the runtime calls this form, whose default calls {@link #onRunEnd(Map)}. By then the
     * runtime has waited for the work the run queued on the session's streams and called each stream's
     * {@link SyncStream#onSessionRunEnd()}. Added in package version 0.7.0.
     *
     * @param runConfig the run's configuration entries
     * @param syncStream whether the EP should synchronize its streams now: false when the run's options set
     *     {@link io.ortex.api.RunOptions#DISABLE_SYNCHRONIZE_EXECUTION_PROVIDERS} to {@code 1}
     */
    default void onRunEnd(Map<String, String> runConfig, boolean syncStream) {
        onRunEnd(runConfig);
    }

    /**
     * Creates the session's stream for one of the EP's memory devices, the counterpart of
     * {@code OrtEp::CreateSyncStreamForDevice}. Called once per session, only when the factory
     * {@link EpFactory#isStreamAware() is stream aware} and for a memory device that is not host memory; when this
     * returns empty the runtime asks {@link EpFactory#createSyncStream} instead. The runtime closes the stream when
     * the session closes. Added in package version 0.7.0; default: none.
     *
     * @param device the EP's {@link #memoryDevice()}
     * @return the stream, or empty to fall back to the factory's
     */
    default Optional<SyncStream> createSyncStream(MemoryDevice device) {
        return Optional.empty();
    }

    /**
     * Describes what the EP compiled a graph for, to be stored in a compiled model's metadata under
     * {@code ep_compatibility_info.<EP name>} and judged later by
     * {@link EpFactory#validateCompiledModelCompatibility}. Mirrors ONNX Runtime's
     * {@code OrtEp::GetCompiledModelCompatibilityInfo}. Default: none.
     *
     * @param graph the graph being compiled
     * @return the compatibility string, or empty
     */
    default Optional<String> compatibilityInfo(GraphView graph) {
        return Optional.empty();
    }

    /**
     * Tells how many bytes of its memory this EP can give the session's weights, for capacity-aware partitioning
     * (ONNX Runtime's resource accountant, which its CUDA EP uses). After {@link #getCapability}, the runtime adds
     * up the constant initializers of the nodes the EP claimed, in graph order and each initializer once, and leaves
     * the nodes beyond the budget to the next EPs. Mirrors ONNX Runtime's {@code OrtEp::GetAvailableResource}.
     * The session option
     * {@code ep.<ep name in lower case>.resource_budget_kb} sets an explicit budget; the smaller of the two applies.
     * Default: no limit.
     *
     * @return the bytes available, or empty for no limit
     */
    default OptionalLong availableMemoryBytes() {
        return OptionalLong.empty();
    }

    /**
     * Tells whether this EP captures the session's graph and replays it (ONNX Runtime's
     * {@code IsGraphCaptureEnabled}). The runtime then checks {@link #graphCapturePolicy()} once the session is
     * partitioned, runs normally (with {@link #onRunStart}/{@link #onRunEnd}, where the EP captures) until
     * {@link #isGraphCaptured} says so, and from then on calls {@link #replayGraph} instead of the session's kernels.
     * Only the first such EP of a session captures. Default: false.
     *
     * @return true when the EP captures graphs
     */
    default boolean isGraphCaptureEnabled() {
        return false;
    }

    /**
     * Tells which nodes may run outside this EP while it captures (ONNX Runtime's
     * {@code GetGraphCaptureNodeAssignmentPolicy}). Default: {@link GraphCapturePolicy#ALL_NODES_ON_EP}.
     *
     * @return the policy
     */
    default GraphCapturePolicy graphCapturePolicy() {
        return GraphCapturePolicy.ALL_NODES_ON_EP;
    }

    /**
     * Tells whether the graph of a graph id is captured (ONNX Runtime's {@code IsGraphCaptured}).
     *
     * @param graphId the id from the run options ({@link io.ortex.api.RunOptions#GRAPH_ID}, 0 by default)
     * @return true once {@link #replayGraph} can run it
     */
    default boolean isGraphCaptured(int graphId) {
        return false;
    }

    /**
     * Replays a captured graph on new inputs (ONNX Runtime's {@code ReplayGraph}, whose outputs land in the
     * buffers bound at capture; here they are returned).
     *
     * @param graphId the graph id
     * @param inputs the session's inputs, by name
     * @return every output of the session's main graph, by name
     */
    default Map<String, Tensor> replayGraph(int graphId, Map<String, Tensor> inputs) {
        throw new NotImplementedException(name() + " has no captured graph " + graphId);
    }
}
