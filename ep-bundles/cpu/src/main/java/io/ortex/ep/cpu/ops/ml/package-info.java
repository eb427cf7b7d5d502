/**
 * The kernels of the classic machine-learning domain {@code ai.onnx.ml}: ArrayFeatureExtractor, Binarizer,
 * LabelEncoder and TreeEnsemble. Registered by {@link io.ortex.ep.cpu.ops.ml.MlOps}.
 */
package io.ortex.ep.cpu.ops.ml;
