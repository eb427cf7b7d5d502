/**
 * The math kernels: element-wise arithmetic, comparisons, logic, unary functions and activations, Clip, the matrix
 * products (MatMul, Gemm, Einsum, with the float32 GEMM micro-kernel {@link io.ortex.ep.cpu.ops.math.Sgemm} that
 * the convolutions share), Softmax, LogSoftmax, Hardmax, CumSum, CumProd and Det. Registered by
 * {@link io.ortex.ep.cpu.ops.math.MathOps}.
 */
package io.ortex.ep.cpu.ops.math;
