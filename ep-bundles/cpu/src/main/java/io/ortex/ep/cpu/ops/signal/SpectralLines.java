package io.ortex.ep.cpu.ops.signal;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * The lines of a DFT: reads the signal along one axis of a {@code [..., 1|2]} tensor into double working arrays
 * and writes the transformed lines into the output, typed loops for float32 and float64 (float16 and bfloat16
 * are widened to float first). One instance serves one run; distinct lines may be written from several threads.
 */
final class SpectralLines {
    /** Work on one line with the thread's working arrays. */
    @FunctionalInterface
    interface LineBody {
        /**
         * Transforms one line.
         *
         * @param re real parts, n long
         * @param im imaginary parts, n long
         * @param scratchRe FFT scratch
         * @param scratchIm FFT scratch
         * @param line the line index
         */
        void run(double[] re, double[] im, double[] scratchRe, double[] scratchIm, int line);
    }

    private final float[] inF;
    private final double[] inD;
    private final int inC;
    private final int inLen;
    private final int inner;
    private final int lines;
    private final long[] outShape;
    private final int outLen;
    private final int outC;
    private final float[] outF;
    private final double[] outD;

    /**
     * Prepares the lines.
     *
     * @param x the signal, {@code [..., 1|2]}
     * @param axis the transformed axis
     * @param outShape the output shape, {@code [..., 1|2]}, equal to the input's except along {@code axis} and last
     */
    SpectralLines(Tensor x, int axis, long[] outShape) {
        long[] xs = x.shape();
        int rank = xs.length;
        boolean dbl = x.type() == ElementType.DOUBLE;
        inD = dbl ? x.doubles() : null;
        inF = dbl ? null : Values.toFloats(x);
        inC = (int) xs[rank - 1];
        inLen = (int) xs[axis];
        inner = Shapes.product(xs, axis + 1, rank - 1);
        lines = Shapes.product(xs, 0, axis) * inner;
        this.outShape = outShape;
        outLen = (int) outShape[axis];
        outC = (int) outShape[rank - 1];
        int total = Tensor.checkedElementCount(outShape);
        outD = dbl ? new double[total] : null;
        outF = dbl ? null : new float[total];
    }

    /**
     * Runs the body over every line, in parallel, with per-thread working arrays.
     *
     * @param ctx the run's context
     * @param body the per-line work
     * @param n the working length
     * @param scratch the FFT scratch length
     */
    void run(KernelContext ctx, LineBody body, int n, int scratch) {
        ctx.parallelFor(lines, FloatData.chunk(4L * n), (from, to) -> {
            double[] re = new double[n];
            double[] im = new double[n];
            double[] s1 = new double[scratch];
            double[] s2 = new double[scratch];
            for (int line = from; line < to; line++) {
                body.run(re, im, s1, s2, line);
            }
        });
    }

    /**
     * Loads the first {@code count} samples of a line and zeroes the rest of the working arrays.
     *
     * @param line the line
     * @param re real parts
     * @param im imaginary parts
     * @param count how many samples to read (at most the input length along the axis)
     */
    void load(int line, double[] re, double[] im, int count) {
        int o = line / inner;
        int base = ((o * inLen) * inner + line % inner) * inC;
        int stride = inner * inC;
        if (inF != null) {
            float[] x = inF;
            if (inC == 2) {
                for (int k = 0, p = base; k < count; k++, p += stride) {
                    re[k] = x[p];
                    im[k] = x[p + 1];
                }
            } else {
                for (int k = 0, p = base; k < count; k++, p += stride) {
                    re[k] = x[p];
                    im[k] = 0;
                }
            }
        } else {
            double[] x = inD;
            for (int k = 0, p = base; k < count; k++, p += stride) {
                re[k] = x[p];
                im[k] = inC == 2 ? x[p + 1] : 0;
            }
        }
        java.util.Arrays.fill(re, count, re.length, 0.0);
        java.util.Arrays.fill(im, count, im.length, 0.0);
    }

    /**
     * Stores the output's bins of a line (the real parts only when the output ends in 1).
     *
     * @param line the line
     * @param re real parts
     * @param im imaginary parts
     */
    void store(int line, double[] re, double[] im) {
        int o = line / inner;
        int base = ((o * outLen) * inner + line % inner) * outC;
        int stride = inner * outC;
        if (outF != null) {
            float[] y = outF;
            if (outC == 2) {
                for (int k = 0, p = base; k < outLen; k++, p += stride) {
                    y[p] = (float) re[k];
                    y[p + 1] = (float) im[k];
                }
            } else {
                for (int k = 0, p = base; k < outLen; k++, p += stride) {
                    y[p] = (float) re[k];
                }
            }
        } else {
            double[] y = outD;
            for (int k = 0, p = base; k < outLen; k++, p += stride) {
                y[p] = re[k];
                if (outC == 2) {
                    y[p + 1] = im[k];
                }
            }
        }
    }

    /**
     * Wraps the output.
     *
     * @param type the element type of the input
     * @return the output tensor
     */
    Tensor result(ElementType type) {
        return outD != null ? Tensor.of(type, outShape, outD) : Values.fromFloats(type, outShape, outF);
    }
}
