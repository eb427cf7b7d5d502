package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Normalization ops (BatchNormalization, LayerNormalization, InstanceNormalization, GroupNormalization, ...). */
public final class NormOps {
    private NormOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("BatchNormalization", BatchNorm.factory());
        r.register("LayerNormalization", LayerNorm.factory(false));
        r.register("RMSNormalization", LayerNorm.factory(true));
        r.register("InstanceNormalization", ChannelNorms.instanceNorm());
        r.register("GroupNormalization", ChannelNorms.groupNorm());
        r.register("LRN", LrnKernel.factory());
        r.register("MeanVarianceNormalization", MeanVarianceNorm.factory());
    }
}
