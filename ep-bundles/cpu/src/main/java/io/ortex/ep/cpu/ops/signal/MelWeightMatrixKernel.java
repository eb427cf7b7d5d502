package io.ortex.ep.cpu.ops.signal;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Shapes;

/**
 * MelWeightMatrix (opset 17): the {@code [dft_length/2 + 1, num_mel_bins]} matrix that maps a one-sided linear
 * spectrum to mel bands. {@code num_mel_bins + 2} points on the mel scale ({@code mel = 2595 log10(1 + hz / 700)}),
 * starting at the lower edge frequency in steps of {@code (upper - lower) / (num_mel_bins + 2)} (the ONNX
 * definition: the last point stays below the upper edge), are mapped back to hertz
 * and to spectrum bins ({@code floor((dft_length + 1) * hz / sample_rate)}); band {@code i} is the triangle rising
 * from point {@code i} to 1 at point {@code i+1} and falling to 0 at point {@code i+2}.
 */
final class MelWeightMatrixKernel {
    private MelWeightMatrixKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        ElementType type = SignalValues.outputType(node);
        return (in, ctx) -> {
            long mels = Shapes.scalar(in[0], "num_mel_bins");
            long dftLength = Shapes.scalar(in[1], "dft_length");
            long sampleRate = Shapes.scalar(in[2], "sample_rate");
            float lower = (float) in[3].getDouble(0);
            float upper = (float) in[4].getDouble(0);
            if (mels < 1 || dftLength < 1 || sampleRate < 1) {
                throw new InvalidArgumentException("MelWeightMatrix inputs 'num_mel_bins', 'dft_length' and "
                        + "'sample_rate' must be positive, got " + mels + ", " + dftLength + ", " + sampleRate);
            }
            int bins = (int) (dftLength / 2 + 1);
            int m = (int) mels;
            long[] shape = {bins, m};
            double[] w = new double[Tensor.checkedElementCount(shape)];
            float lowMel = (float) (2595 * Math.log10(1 + lower / 700f));
            float highMel = (float) (2595 * Math.log10(1 + upper / 700f));
            double step = (highMel - lowMel) / (double) (m + 2); // ONNX spaces by the point count, not the gaps
            int[] points = new int[m + 2];
            for (int i = 0; i < m + 2; i++) {
                double mel = i * step + lowMel;
                double hz = 700 * (Math.pow(10, mel / 2595) - 1);
                points[i] = (int) Math.floor((dftLength + 1) * hz / sampleRate);
            }
            for (int i = 0; i < m; i++) {
                int left = points[i];
                int centre = points[i + 1];
                int right = points[i + 2];
                if (centre == left) {
                    set(w, bins, m, centre, i, 1);
                } else {
                    for (int j = left; j <= centre; j++) {
                        set(w, bins, m, j, i, (double) (j - left) / (centre - left));
                    }
                }
                for (int j = centre; j < right; j++) {
                    set(w, bins, m, j, i, (double) (right - j) / (right - centre));
                }
            }
            return new Tensor[] {SignalValues.fromDoubles(type, shape, w)};
        };
    }

    private static void set(double[] w, int bins, int mels, int bin, int band, double value) {
        if (bin >= 0 && bin < bins) {
            w[bin * mels + band] = value;
        }
    }
}
