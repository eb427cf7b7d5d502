/**
 * The neural-network kernels: Conv, ConvTranspose, DeformConv and Col2Im, pooling, the normalizations, LRN,
 * Dropout, Attention and RotaryEmbedding, the training losses and the state-space ops (CausalConvWithState,
 * LinearAttention). Registered by {@link io.ortex.ep.cpu.ops.nn.NnOps}.
 */
package io.ortex.ep.cpu.ops.nn;
