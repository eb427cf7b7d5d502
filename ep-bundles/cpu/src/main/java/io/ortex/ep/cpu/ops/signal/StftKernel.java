package io.ortex.ep.cpu.ops.signal;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * STFT (opset 17): the short-time Fourier transform of {@code signal [batch, length, 1|2]}: frames of
 * {@code frame_length} samples every {@code frame_step} samples, each multiplied by {@code window} when given,
 * transformed to {@code [batch, frames, bins, 2]} with {@code bins = frame_length/2 + 1} when {@code onesided}
 * (the default) and {@code frame_length} otherwise. The frame length comes from the {@code frame_length} input,
 * else from the window's length. Float32, float64, float16 and bfloat16; the transform runs in double precision.
 */
final class StftKernel {
    private StftKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        boolean onesided = node.intAttr("onesided", 1) != 0;
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "STFT input 'signal'");
            long[] xs = x.shape();
            if (xs.length != 3 || (xs[2] != 1 && xs[2] != 2)) {
                throw new InvalidArgumentException("STFT input 'signal' must have shape [batch, length, 1|2], not "
                        + Tensor.shapeString(xs));
            }
            long step = Shapes.scalar(in[1], "frame_step");
            Tensor window = Shapes.optional(in, 2);
            Tensor lengthInput = Shapes.optional(in, 3);
            long frameLength = lengthInput != null ? Shapes.scalar(lengthInput, "frame_length")
                    : window != null ? window.size() : -1;
            if (frameLength < 1) {
                throw new InvalidArgumentException("STFT needs a positive frame length from input 'frame_length' or "
                        + "'window', got " + frameLength);
            }
            if (window != null && window.size() != frameLength) {
                throw new InvalidArgumentException("STFT input 'window' has " + window.size()
                        + " values for a frame length of " + frameLength);
            }
            if (step < 1) {
                throw new InvalidArgumentException("STFT input 'frame_step' must be positive, not " + step);
            }
            int n = (int) frameLength;
            int batch = (int) xs[0];
            int length = (int) xs[1];
            int channels = (int) xs[2];
            int frames = length < n ? 0 : (int) ((length - n) / step + 1);
            int bins = onesided ? n / 2 + 1 : n;
            long[] os = {batch, frames, bins, 2};
            double[] win = window == null ? null : Values.toDoubles(window);
            boolean dbl = x.type() == ElementType.DOUBLE;
            float[] xf = dbl ? null : Values.toFloats(x);
            double[] xd = dbl ? x.doubles() : null;
            int total = Tensor.checkedElementCount(os);
            float[] yf = dbl ? null : new float[total];
            double[] yd = dbl ? new double[total] : null;
            Fft fft = new Fft(n);
            int scratch = fft.scratchSize();
            ctx.parallelFor(batch * frames, FloatData.chunk(4L * n), (from, to) -> {
                double[] re = new double[n];
                double[] im = new double[n];
                double[] s1 = new double[scratch];
                double[] s2 = new double[scratch];
                for (int line = from; line < to; line++) {
                    int b = line / frames;
                    int f = line % frames;
                    int base = (int) ((b * (long) length + f * step) * channels);
                    if (xf != null) {
                        for (int k = 0, p = base; k < n; k++, p += channels) {
                            re[k] = xf[p];
                            im[k] = channels == 2 ? xf[p + 1] : 0;
                        }
                    } else {
                        for (int k = 0, p = base; k < n; k++, p += channels) {
                            re[k] = xd[p];
                            im[k] = channels == 2 ? xd[p + 1] : 0;
                        }
                    }
                    if (win != null) {
                        for (int k = 0; k < n; k++) {
                            re[k] *= win[k];
                            im[k] *= win[k];
                        }
                    }
                    fft.forward(re, im, s1, s2);
                    int out = line * bins * 2;
                    if (yf != null) {
                        for (int k = 0; k < bins; k++) {
                            yf[out + 2 * k] = (float) re[k];
                            yf[out + 2 * k + 1] = (float) im[k];
                        }
                    } else {
                        for (int k = 0; k < bins; k++) {
                            yd[out + 2 * k] = re[k];
                            yd[out + 2 * k + 1] = im[k];
                        }
                    }
                }
            });
            return new Tensor[] {dbl ? Tensor.of(x.type(), os, yd) : Values.fromFloats(x.type(), os, yf)};
        };
    }
}
