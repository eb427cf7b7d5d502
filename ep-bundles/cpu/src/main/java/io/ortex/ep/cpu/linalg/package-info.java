/**
 * Dense float32 linear algebra for the CPU EP's kernels: a matrix product with operands packed once (constant
 * weights at compile time), blocked for the caches and split over the intra-op threads, with a bias and activation
 * epilogue; and the element-wise activations that epilogue applies. Two implementations sit behind {@link
 * io.ortex.ep.cpu.linalg.Gemm}: Vector API micro-kernels sized from the machine's preferred vector species, and a
 * plain-Java path for JVMs where {@code jdk.incubator.vector} is not present. {@link
 * io.ortex.ep.cpu.linalg.VectorSupport} chooses once, at class initialization.
 */
package io.ortex.ep.cpu.linalg;
