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
    }
}
