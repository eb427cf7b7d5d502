/**
 * The protocol and the repository, free of OSGi: what the protocol means whatever carries it
 * ({@link io.ortex.serve.internal.InferenceCore}); over REST, request decoding
 * ({@link io.ortex.serve.internal.InferRequestDecoder}), response encoding
 * ({@link io.ortex.serve.internal.InferResponseEncoder}) and the routes
 * ({@link io.ortex.serve.internal.InferenceHandler}); over gRPC, the same three
 * ({@link io.ortex.serve.internal.GrpcInferRequestDecoder}, {@link io.ortex.serve.internal.GrpcInferResponseEncoder},
 * {@link io.ortex.serve.internal.GrpcInferenceService}) and the server ({@link io.ortex.serve.internal.GrpcServer});
 * the watched model folder ({@link io.ortex.serve.internal.ModelRepository}) and the metrics
 * ({@link io.ortex.serve.internal.Metrics}). Private to the bundle.
 */
package io.ortex.serve.internal;
