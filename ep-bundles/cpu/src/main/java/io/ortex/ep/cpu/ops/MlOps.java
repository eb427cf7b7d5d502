package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Classic machine-learning ops of the {@code ai.onnx.ml} domain. */
public final class MlOps {
    /** The domain of these ops. */
    static final String DOMAIN = "ai.onnx.ml";

    private MlOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register(DOMAIN, "ArrayFeatureExtractor", 1, MlKernels::arrayFeatureExtractor);
        r.register(DOMAIN, "Binarizer", 1, MlKernels::binarizer);
        r.register(DOMAIN, "LabelEncoder", 2, LabelEncoderKernel::create);
        r.register(DOMAIN, "TreeEnsemble", 5, TreeEnsembleKernel::create);
    }
}
