package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Control-flow ops (If, Loop, Scan): their kernels run the node's subgraphs through
 * {@link io.ortex.api.spi.KernelContext#runSubgraph}, with the outer-scope values the subgraphs read taken from the
 * implicit inputs that follow the node's inputs.
 */
public final class ControlFlowOps {
    private ControlFlowOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("If", IfKernel::create);
        r.register("Loop", LoopKernel::create);
        r.register("Scan", node -> node.opsetVersion() < 9 ? Scan8Kernel.create(node) : ScanKernel.create(node));
    }
}
