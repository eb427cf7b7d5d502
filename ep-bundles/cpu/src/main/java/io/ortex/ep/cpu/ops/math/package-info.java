/**
 * The math kernels: element-wise arithmetic, comparisons, logic, unary functions and activations, Clip, the matrix
 * products (MatMul, Gemm and Einsum, the float32 ones on {@link io.ortex.ep.cpu.linalg.Gemm}), Softmax, LogSoftmax,
 * Hardmax, CumSum, CumProd and Det. Registered by
 * {@link io.ortex.ep.cpu.ops.math.MathOps}.
 */
package io.ortex.ep.cpu.ops.math;
