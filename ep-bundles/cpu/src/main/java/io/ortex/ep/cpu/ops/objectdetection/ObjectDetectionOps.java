package io.ortex.ep.cpu.ops.objectdetection;

import io.ortex.ep.cpu.OpRegistry;

/** Registers the object-detection ops: NonMaxSuppression, RoiAlign and MaxRoiPool. */
public final class ObjectDetectionOps {
    private ObjectDetectionOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "NonMaxSuppression", 10, NonMaxSuppressionKernel::create);
        r.register("", "RoiAlign", 10, 15, node -> RoiAlignKernel.create(node, "output_half_pixel"));
        r.register("", "RoiAlign", 16, node -> RoiAlignKernel.create(node, "half_pixel"));
        r.register("", "MaxRoiPool", 1, MaxRoiPoolKernel::create);
    }
}
