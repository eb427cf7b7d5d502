package io.ortex.ep.cpu.ops.nn;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Registers the neural-network ops: convolutions (Conv, ConvTranspose, DeformConv, Col2Im), pooling, the
 * normalizations, LRN, Dropout, attention and rotary embedding, the training losses and the state-space ops
 * (CausalConvWithState, LinearAttention).
 */
public final class NnOps {
    private NnOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("Conv", ConvKernel::create);
        r.register("ConvTranspose", ConvTransposeKernel::create);
        r.register("", "DeformConv", 19, DeformConvKernel::create);
        r.register("", "Col2Im", 18, Col2ImKernel::create);
        r.register("MaxPool", node -> PoolKernels.create(node, PoolKernels.Kind.MAX));
        r.register("AveragePool", node -> PoolKernels.create(node, PoolKernels.Kind.AVERAGE));
        r.register("LpPool", node -> PoolKernels.create(node, PoolKernels.Kind.LP));
        r.register("GlobalMaxPool", node -> GlobalPoolKernels.create(node, PoolKernels.Kind.MAX));
        r.register("GlobalAveragePool", node -> GlobalPoolKernels.create(node, PoolKernels.Kind.AVERAGE));
        r.register("GlobalLpPool", node -> GlobalPoolKernels.create(node, PoolKernels.Kind.LP));
        r.register("MaxUnpool", MaxUnpoolKernel::create);
        registerNormalizations(r);
        r.register("", "Dropout", 1, 9, node -> DropoutKernel.create(node, false, false));
        r.register("", "Dropout", 10, 11, node -> DropoutKernel.create(node, true, false));
        r.register("", "Dropout", 12, node -> DropoutKernel.create(node, true, true));
        r.register("", "Attention", 23, AttentionKernel.factory());
        r.register("", "RotaryEmbedding", 23, RotaryEmbeddingKernel.factory());
        r.register("", "NegativeLogLikelihoodLoss", 12, node -> LossKernels.create(node, false));
        r.register("", "SoftmaxCrossEntropyLoss", 12, node -> LossKernels.create(node, true));
        r.register("", "CausalConvWithState", 27, CausalConvKernel::create);
        r.register("", "LinearAttention", 27, LinearAttentionKernel::create);
    }

    private static void registerNormalizations(OpRegistry r) {
        r.register("BatchNormalization", BatchNormKernel.factory());
        r.register("LayerNormalization", LayerNormKernels.factory(false));
        r.register("RMSNormalization", LayerNormKernels.factory(true));
        r.register("InstanceNormalization", ChannelNormKernels.instanceNorm());
        r.register("", "GroupNormalization", 1, 20, ChannelNormKernels.groupNorm(false));
        r.register("", "GroupNormalization", 21, ChannelNormKernels.groupNorm(true));
        r.register("LRN", LrnKernel.factory());
        r.register("MeanVarianceNormalization", MeanVarianceNormKernel.factory());
        r.register("LpNormalization", LpNormalizationKernel::create);
    }
}
