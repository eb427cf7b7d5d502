package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Region and sampling-grid ops: AffineGrid, Col2Im, DeformConv, RoiAlign and MaxRoiPool.
 */
public final class RegionOps {
    private RegionOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "AffineGrid", 20, AffineGridKernel::create);
        r.register("", "Col2Im", 18, Col2ImKernel::create);
        r.register("", "DeformConv", 19, DeformConvKernel::create);
        r.register("", "RoiAlign", 10, RoiAlignKernel::create);
        r.register("", "MaxRoiPool", 1, MaxRoiPoolKernel::create);
    }
}
