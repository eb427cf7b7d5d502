package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Loss ops of the training operator set: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. */
public final class LossOps {
    private LossOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "NegativeLogLikelihoodLoss", 12, node -> LossKernels.create(node, false));
        r.register("", "SoftmaxCrossEntropyLoss", 12, node -> LossKernels.create(node, true));
    }
}
