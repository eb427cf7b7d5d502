/**
 * The reduction kernels: the Reduce* family, ArgMax and ArgMin, and the reduction plan and float32 row reductions
 * that Softmax and the normalizations share. Registered by {@link io.ortex.ep.cpu.ops.reduction.ReductionOps}.
 */
package io.ortex.ep.cpu.ops.reduction;
