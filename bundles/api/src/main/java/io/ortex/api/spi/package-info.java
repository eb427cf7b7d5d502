/**
 * The execution-provider (EP) side of Ortex, modelled on ONNX Runtime's plugin-EP interfaces.
 *
 * <p>An EP library publishes one or more {@link io.ortex.api.spi.EpFactory} instances (as OSGi services, or through
 * {@link java.util.ServiceLoader}). The runtime asks each factory which hardware devices it supports, creates
 * {@link io.ortex.api.spi.ExecutionProvider} instances for sessions, offers them the model through the read-only
 * {@link io.ortex.api.spi.GraphView}, and runs what they compile through {@link io.ortex.api.spi.ComputeKernel}s.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("0.8.0")
package io.ortex.api.spi;
