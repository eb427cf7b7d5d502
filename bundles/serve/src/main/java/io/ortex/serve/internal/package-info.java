/**
 * The protocol and the repository, free of OSGi: request decoding
 * ({@link io.ortex.serve.internal.InferRequestDecoder}), response encoding
 * ({@link io.ortex.serve.internal.InferResponseEncoder}), the routes
 * ({@link io.ortex.serve.internal.InferenceHandler}),
 * the watched model folder ({@link io.ortex.serve.internal.ModelRepository}) and the metrics
 * ({@link io.ortex.serve.internal.Metrics}). Private to the bundle.
 */
package io.ortex.serve.internal;
