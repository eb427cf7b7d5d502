/**
 * The quantization kernels: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the integer and quantized
 * products (MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv). Registered by
 * {@link io.ortex.ep.cpu.ops.quantization.QuantizationOps}.
 */
package io.ortex.ep.cpu.ops.quantization;
