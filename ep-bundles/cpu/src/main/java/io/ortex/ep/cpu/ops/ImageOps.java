package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Image and spatial-sampling ops: GridSample, CenterCropPad and NonMaxSuppression.
 */
public final class ImageOps {
    private ImageOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "GridSample", 16, GridSampleKernel::create);
        r.register("", "CenterCropPad", 18, CenterCropPadKernel::create);
        r.register("", "NonMaxSuppression", 10, NonMaxSuppressionKernel::create);
    }
}
