package io.ortex.api.spi;

import io.ortex.api.Tensor;
import java.util.Optional;

/**
 * The compiled form of one group, the counterpart of ONNX Runtime's {@code OrtNodeComputeInfo}. Called once per
 * run; must be thread safe unless its EP says runs may not be concurrent.
 *
 * <p>A kernel can also describe itself as an EPContext payload ({@link #epContext()}), which the runtime stores in
 * a compiled model so that a later session rebuilds the kernel without redoing the compile work.
 */
public interface ComputeKernel extends AutoCloseable {
    /**
     * Computes the group's outputs.
     *
     * @param context the run's context
     * @param inputs one tensor per input of the fused node, {@code null} for an omitted optional input
     * @return one tensor per output of the fused node
     */
    Tensor[] compute(KernelContext context, Tensor[] inputs);

    /**
     * Gives the EPContext payload of this compiled partition. The runtime calls it once, after
     * {@link ExecutionProvider#compile} returned, and only when the session generates a compiled model
     * ({@code ep.context_enable=1}; an EP sees that entry in its session configuration and may prepare the payload
     * during compile, or produce it here). The runtime turns it into an {@code EPContext} node named after the fused
     * node, whose {@code source} is {@link ExecutionProvider#name()}. A kernel that returns empty is not compiled
     * ahead: its group's original nodes stay in the compiled model. Default: empty.
     * ONNX Runtime's counterpart is the EPContext node an EP creates in {@code OrtEp::Compile} (its {@code
     * ep_context_nodes} output).
     *
     * @return the payload, or empty when this kernel cannot be saved
     */
    default Optional<EpContextPayload> epContext() {
        return Optional.empty();
    }

    /**
     * Releases what the kernel holds; called once, when the session closes. Mirrors ONNX Runtime's
     * {@code OrtEp::ReleaseNodeComputeInfos} for this kernel. Default: nothing.
     */
    @Override
    default void close() {
    }
}
