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
 *
 * <h2>Serialized form (the EPContext payload)</h2>
 * {@link io.ortex.ep.example.program.ProgramCodec} writes a program as follows; numbers are little-endian, an
 * {@code i32} is 4 bytes, an {@code i64} 8, an {@code f32} an IEEE 754 float in 4, a {@code u8} one byte; a
 * <i>string</i> is an {@code i32} byte count then that many UTF-8 bytes; an <i>int list</i> is an {@code i32} count
 * then that many {@code i32}.
 * <ol>
 *   <li>magic {@code i32} {@code 0x4750584F} (the bytes {@code OXPG}), format {@code i32} = 3;</li>
 *   <li>inputs: {@code i32} count, then each input name as a string;</li>
 *   <li>weights: {@code i32} count, then for each: name (string), rank ({@code i32}), each dimension
 *       ({@code i64}), value count ({@code i32}, the product of the dimensions), a storage {@code u8}, then for
 *       storage 0 the float32 values ({@code f32} each) in the packed layout, so that loading never packs again, or
 *       for storage 1 (EP contexts shared, {@code ep.share_ep_contexts=1}) the key (string) of the
 *       {@link io.ortex.api.spi.SharedBlob} that holds those values as little-endian float32, stored once per
 *       content by the runtime in the shared context binary;</li>
 *   <li>instructions: {@code i32} count, then for each: op code ({@code i32}, {@link
 *       io.ortex.ep.example.program.OpCode#code()}), fused Relu ({@code u8} 0/1), operand slots (int list), then
 *       the attributes: a kind {@code u8} (0 none; 1 MatMul: {@code u8} bTransposed; 2 Gemm: {@code u8} transA,
 *       {@code u8} transB, {@code f32} alpha, {@code f32} beta; 3 Conv: {@code i32} spatial rank, {@code i32} group,
 *       then kernel, strides, pads and dilations as int lists);</li>
 *   <li>outputs: {@code i32} count then each name (string); output slots (int list).</li>
 * </ol>
 * Nothing may follow. Format 2 is the same without op code 7 (Conv of the NHWC domain, channels last); format 1 is
 * format 2 without the storage byte (values always inline); both are still read.
 * A reader refuses another magic, another format, counts that overrun the bytes, and programs
 * whose slots are inconsistent. The format number goes into the EP's compatibility string
 * ({@code ExampleExecutionProvider;version=<EP version>;format=<format>}).
 */
package io.ortex.ep.example.program;
