package io.ortex.ep.cpu;

import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * The compiled form of one node: attributes parsed and constant weights prepared when it was created, so that
 * {@link #run} does only the arithmetic. Kernels are called from many threads at once and must keep no per-run
 * state in fields.
 */
@FunctionalInterface
public interface CpuKernel {
    /**
     * Computes the node's outputs.
     *
     * @param inputs one tensor per node input, {@code null} for an omitted optional input, followed by one tensor
     *     per implicit input of the node ({@link io.ortex.api.spi.NodeView#implicitInputs()}, in that order): the
     *     outer-scope values that the subgraphs of a control-flow node read, which its kernel passes on by name to
     *     {@link KernelContext#runSubgraph}; nodes without subgraphs get exactly their inputs
     * @param context the run's context (intra-op threads)
     * @return one tensor per node output; entries for omitted optional outputs may be {@code null}
     */
    Tensor[] run(Tensor[] inputs, KernelContext context);
}
