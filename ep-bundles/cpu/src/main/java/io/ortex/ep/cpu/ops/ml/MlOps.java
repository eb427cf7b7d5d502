package io.ortex.ep.cpu.ops.ml;

import io.ortex.ep.cpu.OpRegistry;

/** Registers the classic machine-learning ops of the {@code ai.onnx.ml} domain. */
public final class MlOps {
    /** The domain of these ops. */
    static final String DOMAIN = "ai.onnx.ml";

    private MlOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register(DOMAIN, "ArrayFeatureExtractor", 1, ArrayFeatureExtractorKernel::create);
        r.register(DOMAIN, "Binarizer", 1, BinarizerKernel::create);
        r.register(DOMAIN, "LabelEncoder", 2, LabelEncoderKernel::create);
        r.register(DOMAIN, "TreeEnsemble", 5, TreeEnsembleKernel::create);
    }
}
