package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Shape and data-movement ops (Reshape, Transpose, Concat, Gather, Slice, ...). */
public final class ShapeOps {
    private ShapeOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
    }
}
