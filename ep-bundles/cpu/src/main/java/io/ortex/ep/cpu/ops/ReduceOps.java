package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Reductions and ops that normalize along an axis (ReduceMean, ArgMax, Softmax, ...), and the attention ops built
 * on softmax (Attention, RotaryEmbedding).
 */
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
        r.register("ArgMax", ArgReduce.factory(true));
        r.register("ArgMin", ArgReduce.factory(false));
        r.register("Softmax", SoftmaxKernels.factory(SoftmaxKernels.Kind.SOFTMAX));
        r.register("LogSoftmax", SoftmaxKernels.factory(SoftmaxKernels.Kind.LOG_SOFTMAX));
        r.register("Hardmax", SoftmaxKernels.factory(SoftmaxKernels.Kind.HARDMAX));
        r.register("", "Attention", 23, AttentionKernel.factory());
        r.register("", "RotaryEmbedding", 23, RotaryEmbedding.factory());
    }
}
