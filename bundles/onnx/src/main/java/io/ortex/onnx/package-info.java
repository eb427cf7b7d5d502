/**
 * Reading, validating and writing ONNX models, the {@code TensorProto} codec, and the graph representation
 * ({@link io.ortex.onnx.Graph}, {@link io.ortex.onnx.Node}, {@link io.ortex.onnx.Value}) that implements the SPI's
 * read-only graph view. Internal to Ortex: exported only to the runtime and the shell (a mandatory
 * {@code ortex.internal} attribute in OSGi, qualified exports in JPMS); EPs see only {@code io.ortex.api.spi}.
 */
@org.osgi.annotation.bundle.Export(attribute = {"ortex.internal=true", "mandatory:=ortex.internal"})
@org.osgi.annotation.versioning.Version("0.1.0")
package io.ortex.onnx;
