/**
 * The tensor kernels: shape and data movement (Reshape, Transpose, Slice, Concat, Split, Gather, Scatter, Pad,
 * Expand, Tile, ...), Cast, Where, Identity, Constant and the generators, TopK and Unique, NonZero,
 * ReverseSequence, Resize and Upsample, GridSample, AffineGrid, CenterCropPad and BitCast. Registered by
 * {@link io.ortex.ep.cpu.ops.tensor.TensorOps}.
 */
package io.ortex.ep.cpu.ops.tensor;
