/**
 * The CPU EP's kernels, in groups that each register their ops: {@link io.ortex.ep.cpu.ops.ElementwiseOps}
 * (unary and binary element-wise math, comparisons, logic, activations, casts), {@link io.ortex.ep.cpu.ops.ShapeOps}
 * (shape and data movement), {@link io.ortex.ep.cpu.ops.ReduceOps} (reductions, arg-max/min, softmax-like) and
 * {@link io.ortex.ep.cpu.ops.NnOps} (matrix products, convolution, pooling, normalization).
 */
package io.ortex.ep.cpu.ops;
