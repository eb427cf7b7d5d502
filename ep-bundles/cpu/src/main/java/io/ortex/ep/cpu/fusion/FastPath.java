package io.ortex.ep.cpu.fusion;

import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import java.util.List;

/**
 * The fused computation of a group, given the group's inputs by position. It returns {@code null} when the inputs
 * are not what it handles (another element type, an unexpected shape); the group's nodes then run one by one.
 */
@FunctionalInterface
public interface FastPath {
    /**
     * Computes the group's outputs.
     *
     * @param inputs the group's inputs, in the order of the fused node's input names
     * @param ctx the run's context
     * @return the group's outputs in the order of the fused node's output names, or {@code null} to fall back
     */
    Tensor[] compute(Tensor[] inputs, KernelContext ctx);

    /** Makes the fast path of a match once the group's value names are known. */
    @FunctionalInterface
    interface Factory {
        /**
         * Creates the fast path.
         *
         * @param inputNames the fused node's input names, in order
         * @param outputNames the fused node's output names, in order
         * @return the fast path
         */
        FastPath create(List<String> inputNames, List<String> outputNames);
    }
}
