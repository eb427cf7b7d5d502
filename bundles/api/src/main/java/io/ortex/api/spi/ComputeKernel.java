package io.ortex.api.spi;

import io.ortex.api.Tensor;

/**
 * The compiled form of one group, the counterpart of ONNX Runtime's {@code OrtNodeComputeInfo}. Called once per
 * run; must be thread safe unless its EP says runs may not be concurrent.
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

    /** Releases what the kernel holds; called once, when the session closes. Default: nothing. */
    @Override
    default void close() {
    }
}
