package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Reductions and ops that normalize along an axis (ReduceMean, ArgMax, Softmax, ...). */
public final class ReduceOps {
    private ReduceOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        for (ReduceKind kind : ReduceKind.values()) {
            r.register(kind.opName, ReduceKernels.factory(kind));
        }
    }
}
