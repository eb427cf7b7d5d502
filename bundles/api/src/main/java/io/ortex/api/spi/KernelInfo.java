package io.ortex.api.spi;

/**
 * What a kernel's create function learns about the node it makes a kernel for, the counterpart of ONNX Runtime's
 * {@code OrtKernelInfo}. Valid only during {@link KernelCreateFunction#create}.
 */
public interface KernelInfo {
    /**
     * Gets the node (attributes, inputs, outputs, subgraphs).
     *
     * @return the node
     */
    NodeView node();

    /**
     * Gets the definition the runtime matched to the node.
     * Mirrors the kernel definition ONNX Runtime's {@code OrtKernelInfo} carries ({@code KernelDef_GetOperatorType} and
     * the other {@code KernelDef_*} getters).
     *
     * @return the definition
     */
    KernelDef definition();

    /**
     * Gets the EP the kernel is created for. Mirrors ONNX Runtime's {@code KernelInfo_GetEp}.
     *
     * @return the EP
     */
    ExecutionProvider ep();

    /**
     * Creates the runtime's kernel for a control-flow node ({@code If}, {@code Loop} or {@code Scan}), which an EP
     * registers as the kernel of those ops. Mirrors ONNX Runtime's {@code OrtEpApi::CreateIfKernel},
     * {@code CreateLoopKernel} and {@code CreateScanKernel}. The kernel runs the node's subgraphs through the plans
     * the session made for them once, where the EPs' claims (this EP's kernels included) were settled by partitioning
     * each subgraph like the main graph.
     *
     * @return the kernel
     * @throws io.ortex.api.NotImplementedException when the node is no control-flow node or the session has no CPU
     *     EP to supply the kernel
     */
    KernelImpl controlFlowKernel();
}
