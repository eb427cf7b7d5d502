package io.ortex.ep.cpu.ops.reduction;

import io.ortex.ep.cpu.OpRegistry;

/** Registers the reduction ops: the Reduce* family, ArgMax and ArgMin. */
public final class ReductionOps {
    private ReductionOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        for (ReduceKind kind : ReduceKind.values()) {
            r.register("", kind.opName, 1, kind.axesInputSince - 1, ReduceKernels.factory(kind, false));
            r.register("", kind.opName, kind.axesInputSince, ReduceKernels.factory(kind, true));
        }
        r.register("ArgMax", ArgReduceKernels.factory(true));
        r.register("ArgMin", ArgReduceKernels.factory(false));
    }
}
