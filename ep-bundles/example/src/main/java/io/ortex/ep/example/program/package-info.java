/**
 * The example EP's compiled form of a partition, and the kernels that run it.
 *
 * <p>A {@link io.ortex.ep.example.program.Program} is what an NPU driver would receive: a topologically ordered
 * list of {@link io.ortex.ep.example.program.Instruction}s (an {@link io.ortex.ep.example.program.OpCode}, typed
 * {@link io.ortex.ep.example.program.OpAttributes} and operand slots) plus the constant weights, already packed by
 * {@link io.ortex.ep.example.program.WeightPacking} into the layouts the kernels read. The example EP has no device,
 * so it "emulates" its NPU on the host: the package-private kernels ({@code MatMulKernel}, {@code GemmKernel},
 * {@code ConvKernel}, {@code ElementwiseKernels}) compute in plain Java float32 arithmetic and spread large loops
 * over {@link io.ortex.api.spi.KernelContext#parallelFor}.
 *
 * <p>This package knows nothing about ONNX graphs or the SPI's graph view: a program is plain data, which is what
 * lets it be serialized (for example as an EPContext payload) and loaded without the original model. The
 * translation from a graph to a program lives in {@code io.ortex.ep.example.ProgramCompiler}.
 */
package io.ortex.ep.example.program;
