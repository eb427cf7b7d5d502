/**
 * The example execution provider: the EP to read first when writing one, and the subject of the runtime's
 * plugin-EP tests. It emulates an NPU on the host and shows each part of the SPI:
 * <dl>
 *   <dt>{@link io.ortex.ep.example.ExampleEpFactory}: the library's entry point</dt>
 *   <dd>{@code name()}, {@code vendor()}, {@code vendorId()} and {@code version()} identify the EP
 *       ({@code ExampleExecutionProvider}, {@code Ortex Examples}, a made-up id {@code 0x4F58}, {@code 0.1.0}).
 *       {@code supportedDevices()} ignores the real hardware and, only when the environment configuration has
 *       {@code allow_virtual_devices=1}, creates its own virtual NPU device ({@code is_virtual=1}) with EP metadata
 *       ({@code supported_ops}) and default EP options ({@code fuse=1}, {@code layout=NHWC}); it never sets
 *       {@code version}, which the runtime adds. {@code createEp()} checks the selected devices and reads the
 *       options; {@code releaseEp()} has nothing to free. It registers through {@code META-INF/services} and
 *       {@code module-info}'s {@code provides}.</dd>
 *   <dt>{@link io.ortex.api.spi.ExecutionProvider#getCapability}: what the EP claims</dt>
 *   <dd>Float32 {@code MatMul}, {@code Gemm}, {@code Add}, {@code Mul}, {@code Relu} and {@code Conv} nodes of the
 *       default domain whose attributes it implements ({@code NodeSupport}, {@code NodeAttributes}). It groups them
 *       into connected groups that are convex, so fusing one never creates a cycle ({@code FusionPlanner}), and
 *       claims each with {@code addNodesToFuse} and {@code dropConstantInitializers=true}.</dd>
 *   <dt>{@link io.ortex.api.spi.ExecutionProvider#compile}: turning groups into kernels</dt>
 *   <dd>Each group's graph becomes an {@link io.ortex.ep.example.program.Program} ({@code ProgramCompiler}): its
 *       ops in topological order, constant weights read once and packed for the kernels, an optional Relu folding
 *       pass. A {@code ProgramKernel} runs it with the fused node's inputs and outputs, in the order of
 *       {@link io.ortex.api.spi.FusedNode#inputNames()} and {@link io.ortex.api.spi.FusedNode#outputNames()};
 *       intermediate values stay inside.</dd>
 *   <dt>{@link io.ortex.api.spi.ExecutionProvider#preferredDataLayout} and
 *       {@link io.ortex.api.spi.ExecutionProvider#shouldConvertDataLayout}: the layout it computes in</dt>
 *   <dd>It prefers NHWC and asks the runtime to convert its {@code Conv} nodes, and nothing else: it claims them
 *       back in the domain {@code com.ms.internal.nhwc}, between the transposes the runtime inserted, and runs them
 *       on channels-last data with the weight as ONNX gives it ({@code OpCode.CONV_NHWC}).</dd>
 * </dl>
 * Everything else keeps the SPI's defaults: host memory (so no data transfer), concurrent runs allowed.
 * This package is private to the bundle; nothing depends on it.
 */
package io.ortex.ep.example;
