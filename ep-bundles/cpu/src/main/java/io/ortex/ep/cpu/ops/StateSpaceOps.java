package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Stateful sequence-model ops that carry a recurrent state between calls: CausalConvWithState and LinearAttention.
 */
public final class StateSpaceOps {
    private StateSpaceOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "CausalConvWithState", 27, CausalConvKernel::create);
        r.register("", "LinearAttention", 27, LinearAttentionKernel::create);
    }
}
