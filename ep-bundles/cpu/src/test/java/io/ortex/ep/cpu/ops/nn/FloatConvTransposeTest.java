package io.ortex.ep.cpu.ops.nn;

import static io.ortex.ep.cpu.KernelHarness.nanFilled;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.linalg.Activation;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The float32 transposed convolution (taps that never overlap, scattered by copying in parallel over input blocks;
 * overlapping taps, accumulated per chunk of output channels) with folded channel operations, against a direct
 * float64 scatter, on one thread and on three, on the implementation this JVM selects (the build runs this class
 * again without the Vector API). Uninitialized memory is NaN, so an output nobody writes shows.
 */
class FloatConvTransposeTest {
    private static int size(long... shape) {
        return Math.toIntExact(Arrays.stream(shape).reduce(1, (a, b) -> a * b));
    }

    private static long[] s(long... v) {
        return v;
    }

    private static TransposeWindow.Attrs attrs(int group, long[] strides, long[] pads, long[] outputPadding,
            long[] dilations) {
        return new TransposeWindow.Attrs("NOTSET", strides, dilations, pads, outputPadding, null, null, group);
    }

    /** The transposed convolution and the channel operations in float64, scattering input by input. */
    private static float[] reference(long[] xShape, long[] wShape, TransposeWindow.Attrs a, float[] x, float[] w,
            float[] b, ChannelOps ops) {
        int r = xShape.length - 2;
        TransposeWindow g = TransposeWindow.resolve(a, Arrays.copyOfRange(xShape, 2, 2 + r),
                Arrays.copyOfRange(wShape, 2, 2 + r));
        int n = (int) xShape[0];
        int cin = (int) xShape[1];
        int coutg = (int) wShape[1];
        int cing = cin / a.group();
        int cout = coutg * a.group();
        int kv = g.kernelSize();
        double[] y = new double[n * cout * g.outSize()];
        for (int ni = 0; ni < n; ni++) {
            for (int co = 0; co < cout; co++) {
                int gi = co / coutg;
                int yo = (ni * cout + co) * g.outSize();
                for (int p = 0; p < g.outSize(); p++) {
                    y[yo + p] = b == null ? 0 : b[co];
                }
                for (int ci = 0; ci < cing; ci++) {
                    int xo = (ni * cin + gi * cing + ci) * g.inSize();
                    int wo = ((gi * cing + ci) * coutg + co % coutg) * kv;
                    for (int id = 0; id < g.in[0]; id++) {
                        for (int ih = 0; ih < g.in[1]; ih++) {
                            for (int iw = 0; iw < g.in[2]; iw++) {
                                double v = x[xo + (id * g.in[1] + ih) * g.in[2] + iw];
                                for (int kd = 0; kd < g.k[0]; kd++) {
                                    for (int kh = 0; kh < g.k[1]; kh++) {
                                        for (int kw = 0; kw < g.k[2]; kw++) {
                                            int od = id * g.s[0] - g.pb[0] + kd * g.d[0];
                                            int oh = ih * g.s[1] - g.pb[1] + kh * g.d[1];
                                            int ow = iw * g.s[2] - g.pb[2] + kw * g.d[2];
                                            if (od >= 0 && od < g.out[0] && oh >= 0 && oh < g.out[1] && ow >= 0
                                                    && ow < g.out[2]) {
                                                y[yo + (od * g.out[1] + oh) * g.out[2] + ow] += v
                                                        * w[wo + (kd * g.k[1] + kh) * g.k[2] + kw];
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                for (int p = 0; p < g.outSize(); p++) {
                    double v = y[yo + p];
                    for (ChannelOps.Step st : ops.steps()) {
                        v = st.isAffine() ? v * st.scale(co) + st.shift(co) : st.activation().applyScalar((float) v);
                    }
                    y[yo + p] = v;
                }
            }
        }
        float[] f = new float[y.length];
        for (int i = 0; i < y.length; i++) {
            f[i] = (float) y[i];
        }
        return f;
    }

    private static void check(long[] xShape, long[] wShape, TransposeWindow.Attrs a, boolean bias, ChannelOps ops) {
        float[] x = uniform(size(xShape), 1 + size(xShape));
        float[] w = uniform(size(wShape), 2 + size(wShape));
        float[] b = bias ? uniform((int) (wShape[1] * a.group()), 3) : null;
        float[] want = reference(xShape, wShape, a, x, w, b, ops);
        FloatConvTranspose conv = FloatConvTranspose.create(a, wShape, w, b, ops);
        String what = "x" + Arrays.toString(xShape) + " w" + Arrays.toString(wShape) + " strides "
                + Arrays.toString(a.strides()) + " pads " + Arrays.toString(a.pads()) + " with " + ops.steps().size()
                + " channel steps";
        for (int threads : new int[] {1, 3}) {
            float[] got = conv.run(Tensor.ofFloats(x, xShape), nanFilled(threads)).floats();
            assertTrue(got.length == want.length, what + ": " + got.length + " outputs, expected " + want.length);
            for (int i = 0; i < want.length; i++) {
                assertTrue(Math.abs(got[i] - want[i]) <= 1e-4 * Math.max(1, Math.abs(want[i])), what + " on "
                        + threads + " threads at " + i + ": " + got[i] + " vs " + want[i]);
            }
        }
    }

    @Test
    void everyGeometryMatchesTheDefinition() {
        ChannelOps none = ChannelOps.NONE;
        // PP-OCR's upsampling heads: 2x2 stride 2, every output reached once
        check(s(1, 24, 20, 20), s(24, 24, 2, 2), attrs(1, s(2, 2), null, null, null), true, none);
        check(s(1, 24, 17, 33), s(24, 1, 2, 2), attrs(1, s(2, 2), null, null, null), false, none);
        // taps apart (stride beyond the kernel), pads cropping, output padding
        check(s(2, 4, 7, 9), s(4, 3, 2, 2), attrs(2, s(3, 3), s(1, 0, 0, 1), s(1, 2), null), true, none);
        check(s(1, 3, 5, 6), s(3, 2, 2, 2), attrs(1, s(4, 2), null, null, s(2, 1)), true, none);
        // overlapping taps
        check(s(2, 4, 5, 6), s(4, 3, 3, 2), attrs(2, s(2, 3), s(1, 0, 0, 1), s(1, 0), s(1, 2)), true, none);
        check(s(1, 8, 9, 9), s(8, 40, 3, 3), attrs(1, s(2, 2), s(1, 1, 1, 1), s(1, 1), null), true, none);
        check(s(1, 2, 7), s(2, 2, 3), attrs(1, s(2), null, null, null), true, none);
        check(s(1, 2, 3, 4, 3), s(2, 2, 2, 2, 2), attrs(1, s(2, 1, 2), null, null, null), true, none);
    }

    @Test
    void channelOperationsAreFoldedOrAppliedInOrder() {
        ChannelOps biasBnRelu = ChannelOps.of(List.of(ChannelOps.affine(null, uniform(6, 4)),
                ChannelOps.affine(uniform(6, 5), uniform(6, 6)), ChannelOps.activation(Activation.RELU)));
        ChannelOps shiftSigmoid = ChannelOps.of(List.of(ChannelOps.affine(null, new float[] {-0.1f}),
                ChannelOps.activation(Activation.SIGMOID), ChannelOps.affine(new float[] {2f}, null)));
        for (ChannelOps ops : List.of(biasBnRelu, shiftSigmoid)) {
            check(s(1, 5, 11, 13), s(5, 6, 2, 2), attrs(1, s(2, 2), null, null, null), false, ops);
            check(s(1, 5, 11, 13), s(5, 6, 2, 2), attrs(1, s(3, 3), s(1, 1, 0, 0), null, null), true, ops);
            check(s(1, 5, 6, 7), s(5, 6, 3, 3), attrs(1, s(2, 2), s(1, 1, 1, 1), null, null), true, ops);
        }
    }

    @Test
    void emptyInputsAndMismatchedShapes() {
        TransposeWindow.Attrs a = attrs(1, s(2, 2), null, null, null);
        FloatConvTranspose conv = FloatConvTranspose.create(a, s(3, 2, 2, 2), uniform(24, 1), new float[] {1, 2},
                ChannelOps.NONE);
        assertArrayEquals(s(0, 2, 8, 8), conv.run(Tensor.ofFloats(new float[0], 0, 3, 4, 4), nanFilled(1)).shape());
        assertThrows(InvalidArgumentException.class, () -> conv.run(Tensor.ofFloats(new float[32], 1, 2, 4, 4),
                nanFilled(1)));
        assertThrows(InvalidArgumentException.class, () -> FloatConvTranspose.create(a, s(3, 2, 2, 2),
                uniform(24, 1), new float[3], ChannelOps.NONE));
        assertThrows(InvalidArgumentException.class, () -> FloatConvTranspose.create(attrs(2, null, null, null, null),
                s(3, 2, 2, 2), uniform(24, 1), null, ChannelOps.NONE));
    }
}
