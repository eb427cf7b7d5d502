/**
 * The neural-network kernels: Conv, ConvTranspose, DeformConv and Col2Im, pooling, the normalizations, LRN,
 * Dropout, Attention and RotaryEmbedding, the training losses and the state-space ops (CausalConvWithState,
 * LinearAttention). Registered by {@link io.ortex.ep.cpu.ops.nn.NnOps}. Float32 convolutions are prepared once per node
 * ({@link io.ortex.ep.cpu.ops.nn.FloatConv}, {@link io.ortex.ep.cpu.ops.nn.FloatConvTranspose}) on the linalg
 * GEMM, with what follows them channel by channel ({@link io.ortex.ep.cpu.ops.nn.ChannelOps}) folded in; the CPU
 * EP's convolution fusions build them too.
 */
package io.ortex.ep.cpu.ops.nn;
