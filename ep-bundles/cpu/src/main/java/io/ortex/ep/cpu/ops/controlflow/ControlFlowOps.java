package io.ortex.ep.cpu.ops.controlflow;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Registers the control-flow ops (If, Loop, Scan): their kernels run the node's subgraphs through
 * {@link io.ortex.api.spi.KernelContext#runSubgraph}, with the outer-scope values the subgraphs read taken from the
 * implicit inputs that follow the node's inputs.
 */
public final class ControlFlowOps {
    private ControlFlowOps() {
    }

    /**
     * Registers this category's ops. Scan has a batch axis up to opset 8 and none from 9.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("If", IfKernel::create);
        r.register("Loop", LoopKernel::create);
        r.register("", "Scan", 1, 8, Scan8Kernel::create);
        r.register("", "Scan", 9, ScanKernel::create);
    }
}
