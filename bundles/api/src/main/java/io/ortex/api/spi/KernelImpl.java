package io.ortex.api.spi;

import io.ortex.api.Tensor;
import java.util.Optional;

/**
 * A kernel an EP registered for one op, created once per node, the counterpart of ONNX Runtime's
 * {@code OrtKernelImpl}. Called from the session's run threads, concurrently unless its EP says runs may not be
 * concurrent; it keeps no per-run state in fields.
 */
public interface KernelImpl extends AutoCloseable {
    /**
     * Computes the node's outputs. Mirrors ONNX Runtime's {@code OrtKernelImpl::Compute}.
     *
     * @param context the run's context: outputs by index ({@link KernelComputeContext#output}), scratch, intra-op
     *     threads, and for the runtime's control-flow kernels the node's subgraphs
     * @param inputs one tensor per node input in the node's order, {@code null} for an omitted optional input;
     *     followed, for a node with subgraphs, by its implicit inputs in {@link NodeView#implicitInputs()} order
     * @return one tensor per node output in the node's order ({@code null} allowed for an output nobody reads)
     */
    Tensor[] compute(KernelComputeContext context, Tensor[] inputs);

    /**
     * Prepares a constant input once, at session creation, in the kernel's own form. Mirrors ONNX Runtime's
     * {@code OrtKernelImpl::PrePackWeight}. The runtime hands what it returns back through
     * {@link #setPrePackedWeight}, the kernel's own pack or, when the session shares pre-packed weights through its
     * environment ({@code session.use_env_allocators=1}), the pack another session made of the same weight content
     * for the same kernel, in which case this method is not called at all. The kernel must not keep the result
     * otherwise. Not called when the session sets {@code session.disable_prepacking=1}. Default: packs nothing.
     *
     * @param inputIndex the input's position among the node's inputs
     * @param weight the constant's value
     * @return the packed form, or empty when the kernel uses the weight as it is
     */
    default Optional<PrePackedWeight> prePackWeight(int inputIndex, Tensor weight) {
        return Optional.empty();
    }

    /**
     * Receives the packed form of a constant input, to use in {@link #compute} instead of the input. Mirrors ONNX
     * Runtime's {@code OrtKernelImpl::SetSharedPrePackedWeight}. The weight stays valid until this kernel is closed.
     * Default: nothing (only a kernel that packs needs it).
     *
     * @param inputIndex the input's position among the node's inputs
     * @param weight the packed form, read only
     */
    default void setPrePackedWeight(int inputIndex, PrePackedWeight weight) {
    }

    /**
     * Releases what the kernel holds, once, when its session closes. Mirrors ONNX Runtime's
     * {@code OrtKernelImpl::Release}. Default: nothing.
     */
    @Override
    default void close() {
    }
}
