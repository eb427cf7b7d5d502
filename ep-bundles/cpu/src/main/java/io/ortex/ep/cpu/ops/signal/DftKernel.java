package io.ortex.ep.cpu.ops.signal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;

/**
 * DFT (opsets 17 and 20): the discrete Fourier transform of a real ({@code [..., 1]}) or complex ({@code [..., 2]})
 * signal along one axis, forward or inverse (scaled by 1/n), zero-padded or truncated to {@code dft_length}.
 * {@code onesided} keeps the first {@code n/2+1} bins of a forward transform; with {@code inverse} it reads a
 * half spectrum, completes it by conjugate symmetry and returns the real signal ({@code [..., 1]}), whose length
 * defaults to {@code 2 * (bins - 1)}. Opset 17 takes the axis as an attribute (default 1), opset 20 as the optional
 * third input (default -2). Float32, float64, float16 and bfloat16; the transform runs in double precision.
 */
final class DftKernel {
    private DftKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @param axisInput whether the axis is the optional third input (opset 20 on) rather than the attribute
     * @return the kernel
     */
    static CpuKernel create(NodeView node, boolean axisInput) {
        boolean inverse = node.intAttr("inverse", 0) != 0;
        boolean onesided = node.intAttr("onesided", 0) != 0;
        long axisAttr = node.intAttr("axis", 1);
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "DFT input 'input'");
            long[] xs = x.shape();
            int rank = xs.length;
            if (rank < 2 || (xs[rank - 1] != 1 && xs[rank - 1] != 2)) {
                throw new InvalidArgumentException("DFT input 'input' must end in a dimension of 1 (real) or 2 "
                        + "(complex), its shape is " + Tensor.shapeString(xs));
            }
            long axisValue = axisAttr;
            if (axisInput) {
                Tensor a = Shapes.optional(in, 2);
                axisValue = a == null ? -2 : Shapes.scalar(a, "axis");
            }
            int axis = (int) (axisValue < 0 ? axisValue + rank : axisValue);
            if (axis < 0 || axis > rank - 2) {
                throw new InvalidArgumentException("DFT axis " + axisValue + " is out of range for input rank "
                        + rank + " (the last dimension holds the complex components)");
            }
            int len = (int) xs[axis];
            Tensor lengthInput = Shapes.optional(in, 1);
            long n = lengthInput != null ? Shapes.scalar(lengthInput, "dft_length")
                    : inverse && onesided ? 2L * (len - 1) : len;
            if (n < 1) {
                throw new InvalidArgumentException("DFT length " + n + " must be positive (input 'dft_length' or "
                        + "the signal length along axis " + axis + ")");
            }
            long[] os = xs.clone();
            os[axis] = !inverse && onesided ? n / 2 + 1 : n;
            os[rank - 1] = inverse && onesided ? 1 : 2;
            SpectralLines lines = new SpectralLines(x, axis, os);
            Fft fft = new Fft((int) n);
            int hermitianBins = (int) (n / 2 + 1);
            lines.run(ctx, (re, im, s1, s2, line) -> {
                if (inverse && onesided) {
                    lines.load(line, re, im, Math.min(len, hermitianBins));
                    for (int k = hermitianBins; k < n; k++) {
                        re[k] = re[(int) n - k];
                        im[k] = -im[(int) n - k];
                    }
                } else {
                    lines.load(line, re, im, Math.min(len, (int) n));
                }
                if (inverse) {
                    fft.inverse(re, im, s1, s2);
                } else {
                    fft.forward(re, im, s1, s2);
                }
                lines.store(line, re, im);
            }, (int) n, fft.scratchSize());
            return new Tensor[] {lines.result(x.type())};
        };
    }
}
