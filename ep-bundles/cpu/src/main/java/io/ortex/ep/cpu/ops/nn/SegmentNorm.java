package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.reduction.FloatReducer;
import io.ortex.ep.cpu.ops.support.FloatData;

/**
 * The shared core of LayerNormalization, RMSNormalization, InstanceNormalization and GroupNormalization: the input
 * is a run of equal contiguous segments, each normalized by its own mean and variance (statistics in double,
 * variance in two passes), then scaled and shifted. A segment is {@code blocks} blocks of {@code blockLen}
 * elements, and block {@code b} of segment {@code s} uses scale and bias element
 * {@code (s % segMod) * segMul + b}: LayerNorm has one block per element, InstanceNorm one block per segment
 * indexed by channel, GroupNorm one block per channel of the group.
 */
final class SegmentNorm {
    private final int segments;
    private final int blocks;
    private final int blockLen;
    private final int segMod;
    private final int segMul;
    private final boolean center;
    private final double epsilon;

    /**
     * Describes a normalization.
     *
     * @param segments the number of segments
     * @param blocks the blocks per segment
     * @param blockLen the elements per block
     * @param segMod the period of the segment's part of the scale index
     * @param segMul the stride of the segment's part of the scale index
     * @param center whether the mean is subtracted (false for RMS normalization, which divides by the root mean
     *     square)
     * @param epsilon added to the variance before the square root
     */
    SegmentNorm(int segments, int blocks, int blockLen, int segMod, int segMul, boolean center, double epsilon) {
        this.segments = segments;
        this.blocks = blocks;
        this.blockLen = blockLen;
        this.segMod = segMod;
        this.segMul = segMul;
        this.center = center;
        this.epsilon = epsilon;
    }

    /**
     * Normalizes float data.
     *
     * @param x the input
     * @param scale the scale, or {@code null} for 1
     * @param bias the bias, or {@code null} for 0
     * @param meanOut receives each segment's mean, or {@code null}
     * @param invStdOut receives each segment's 1/sqrt(var + epsilon), or {@code null}
     * @param ctx the run context
     * @return the output
     */
    float[] run(float[] x, float[] scale, float[] bias, float[] meanOut, float[] invStdOut, KernelContext ctx) {
        float[] y = new float[x.length];
        int segLen = blocks * blockLen;
        if (segLen == 0) {
            return y;
        }
        ctx.parallelFor(segments, FloatData.chunk(segLen), (from, to) -> {
            for (int s = from; s < to; s++) {
                int off = s * segLen;
                double mean = center ? FloatReducer.sum(x, off, segLen) / segLen : 0;
                double var;
                if (center) {
                    double acc = 0;
                    for (int i = off, end = off + segLen; i < end; i++) {
                        double d = x[i] - mean;
                        acc += d * d;
                    }
                    var = acc / segLen;
                } else {
                    var = FloatReducer.sumSquares(x, off, segLen) / segLen;
                }
                double inv = 1.0 / Math.sqrt(var + epsilon);
                if (meanOut != null) {
                    meanOut[s] = (float) mean;
                }
                if (invStdOut != null) {
                    invStdOut[s] = (float) inv;
                }
                float m = (float) mean;
                float invF = (float) inv;
                int sc = (s % segMod) * segMul;
                if (blockLen == 1) {
                    for (int j = 0; j < segLen; j++) {
                        float g = scale == null ? invF : scale[sc + j] * invF;
                        float b = bias == null ? 0f : bias[sc + j];
                        y[off + j] = (x[off + j] - m) * g + b;
                    }
                } else {
                    for (int blk = 0; blk < blocks; blk++) {
                        float g = scale == null ? invF : scale[sc + blk] * invF;
                        float b = bias == null ? 0f : bias[sc + blk];
                        int o = off + blk * blockLen;
                        for (int i = o, end = o + blockLen; i < end; i++) {
                            y[i] = (x[i] - m) * g + b;
                        }
                    }
                }
            }
        });
        return y;
    }

    /**
     * Normalizes double data; the same contract as the float version.
     *
     * @param x the input
     * @param scale the scale, or {@code null} for 1
     * @param bias the bias, or {@code null} for 0
     * @param meanOut receives each segment's mean, or {@code null}
     * @param invStdOut receives each segment's 1/sqrt(var + epsilon), or {@code null}
     * @param ctx the run context
     * @return the output
     */
    double[] run(double[] x, double[] scale, double[] bias, double[] meanOut, double[] invStdOut,
            KernelContext ctx) {
        double[] y = new double[x.length];
        int segLen = blocks * blockLen;
        if (segLen == 0) {
            return y;
        }
        ctx.parallelFor(segments, FloatData.chunk(segLen), (from, to) -> {
            for (int s = from; s < to; s++) {
                int off = s * segLen;
                double mean = 0;
                if (center) {
                    for (int i = off, end = off + segLen; i < end; i++) {
                        mean += x[i];
                    }
                    mean /= segLen;
                }
                double acc = 0;
                for (int i = off, end = off + segLen; i < end; i++) {
                    double d = x[i] - mean;
                    acc += d * d;
                }
                double inv = 1.0 / Math.sqrt(acc / segLen + epsilon);
                if (meanOut != null) {
                    meanOut[s] = mean;
                }
                if (invStdOut != null) {
                    invStdOut[s] = inv;
                }
                int sc = (s % segMod) * segMul;
                for (int blk = 0; blk < blocks; blk++) {
                    double g = scale == null ? inv : scale[sc + blk] * inv;
                    double b = bias == null ? 0 : bias[sc + blk];
                    int o = off + blk * blockLen;
                    for (int i = o, end = o + blockLen; i < end; i++) {
                        y[i] = (x[i] - mean) * g + b;
                    }
                }
            }
        });
        return y;
    }
}
