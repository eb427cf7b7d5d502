package io.ortex.ep.cpu.ops.nn;

import static io.ortex.ep.cpu.KernelHarness.nanFilled;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Activation;
import io.ortex.ep.cpu.linalg.VectorSupport;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The float32 convolution (depthwise, pointwise and lowered products, with folded channel operations) against a
 * direct float64 loop, on the implementation this JVM selects ({@link VectorSupport}; the build runs this class once
 * more with the Vector API turned off), on one thread and split over threads. Scratch and outputs come from a context
 * that fills uninitialized memory with NaN, so an element a kernel forgets to write shows.
 */
class FloatConvTest {
    /** Splits work over up to three threads of the common pool; uninitialized memory is NaN. */
    private static final KernelContext THREADS = nanFilled(3);
    /** Runs everything on the calling thread; uninitialized memory is NaN. */
    private static final KernelContext ONE = nanFilled(1);

    private static int size(long... shape) {
        return Math.toIntExact(Arrays.stream(shape).reduce(1, (a, b) -> a * b));
    }

    /** One convolution problem. */
    private record Case(long[] xShape, long[] wShape, boolean bias, Window.Attrs attrs, int group) {
        @Override
        public String toString() {
            return "x" + Arrays.toString(xShape) + " w" + Arrays.toString(wShape) + " group " + group + " strides "
                    + Arrays.toString(attrs.strides()) + " pads " + Arrays.toString(attrs.pads()) + " dilations "
                    + Arrays.toString(attrs.dilations()) + " " + attrs.autoPad();
        }
    }

    private static Case conv(long[] x, long[] w, int group, long[] strides, long[] pads, long[] dilations) {
        return new Case(x, w, true, new Window.Attrs("Conv", "NOTSET", null, strides, pads, dilations, false),
                group);
    }

    private static Case autoPad(long[] x, long[] w, int group, long[] strides, String autoPad) {
        return new Case(x, w, false, new Window.Attrs("Conv", autoPad, null, strides, null, null, false), group);
    }

    private static long[] s(long... v) {
        return v;
    }

    /** The convolution and the channel operations in float64, straight from the definition. */
    private static float[] reference(Case c, float[] x, float[] w, float[] b, ChannelOps ops) {
        int r = c.xShape().length - 2;
        Window g = Window.resolve(c.attrs(), Arrays.copyOfRange(c.xShape(), 2, 2 + r),
                Arrays.copyOfRange(c.wShape(), 2, 2 + r));
        int n = (int) c.xShape()[0];
        int ch = (int) c.xShape()[1];
        int cout = (int) c.wShape()[0];
        int cing = (int) c.wShape()[1];
        int coutg = cout / c.group();
        int kv = g.kernelSize();
        float[] y = new float[n * cout * g.outSize()];
        int i = 0;
        for (int ni = 0; ni < n; ni++) {
            for (int co = 0; co < cout; co++) {
                int gi = co / coutg;
                for (int od = 0; od < g.out[0]; od++) {
                    for (int oh = 0; oh < g.out[1]; oh++) {
                        for (int ow = 0; ow < g.out[2]; ow++) {
                            double sum = b == null ? 0 : b[co];
                            for (int ci = 0; ci < cing; ci++) {
                                int xc = (ni * ch + gi * cing + ci) * g.inSize();
                                int wc = (co * cing + ci) * kv;
                                for (int kd = 0; kd < g.k[0]; kd++) {
                                    for (int kh = 0; kh < g.k[1]; kh++) {
                                        for (int kw = 0; kw < g.k[2]; kw++) {
                                            int id = od * g.s[0] - g.pb[0] + kd * g.d[0];
                                            int ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
                                            int iw = ow * g.s[2] - g.pb[2] + kw * g.d[2];
                                            if (id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0
                                                    && iw < g.in[2]) {
                                                sum += (double) x[xc + (id * g.in[1] + ih) * g.in[2] + iw]
                                                        * w[wc + (kd * g.k[1] + kh) * g.k[2] + kw];
                                            }
                                        }
                                    }
                                }
                            }
                            for (ChannelOps.Step st : ops.steps()) {
                                sum = st.isAffine() ? sum * st.scale(co) + st.shift(co)
                                        : st.activation().applyScalar((float) sum);
                            }
                            y[i++] = (float) sum;
                        }
                    }
                }
            }
        }
        return y;
    }

    private static void check(Case c, ChannelOps ops) {
        float[] x = uniform(size(c.xShape()), 1 + size(c.xShape()));
        float[] w = uniform(size(c.wShape()), 2 + size(c.wShape()));
        float[] b = c.bias() ? uniform((int) c.wShape()[0], 3) : null;
        float[] want = reference(c, x, w, b, ops);
        FloatConv conv = FloatConv.create(c.attrs(), c.group(), c.wShape(), w, b, ops);
        for (KernelContext ctx : new KernelContext[] {ONE, THREADS}) {
            Tensor y = conv.run(Tensor.ofFloats(x, c.xShape()), ctx);
            float[] got = y.floats();
            assertTrue(got.length == want.length, c + ": " + got.length + " outputs, expected " + want.length);
            int k = (int) (size(c.wShape()) / c.wShape()[0]);
            for (int i = 0; i < want.length; i++) {
                double tol = 2e-6 * k + 1e-5;
                assertTrue(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])), c + " with " + ops
                        + " on " + ctx.intraOpThreads() + " threads at " + i + ": " + got[i] + " vs " + want[i]);
            }
        }
    }

    private static final List<Case> CASES = List.of(
            // pointwise: tails of the micro-kernel's tile in rows and columns, a reduction over several blocks
            conv(s(1, 16, 20, 20), s(32, 16, 1, 1), 1, null, null, null),
            conv(s(2, 5, 7, 3), s(7, 5, 1, 1), 1, null, null, null),
            conv(s(1, 300, 9, 7), s(18, 300, 1, 1), 1, null, null, null),
            conv(s(1, 3, 1, 1), s(2, 3, 1, 1), 1, null, null, null),
            conv(s(1, 8, 40, 40), s(12, 4, 1, 1), 2, null, null, null),
            // lowered: PP-OCR's first layer and neck, openWakeWord's separable kernels, K over several blocks
            conv(s(1, 3, 33, 35), s(16, 3, 3, 3), 1, s(2, 2), s(1, 1, 1, 1), null),
            conv(s(1, 40, 18, 17), s(24, 40, 3, 3), 1, null, s(1, 1, 1, 1), null),
            conv(s(1, 6, 74, 32), s(5, 6, 1, 3), 1, null, s(0, 1, 0, 1), null),
            conv(s(1, 6, 37, 16), s(9, 6, 3, 1), 1, null, null, null),
            conv(s(2, 4, 9, 11), s(6, 2, 3, 2), 2, s(2, 1), s(1, 0, 2, 1), s(1, 2)),
            conv(s(1, 4, 12, 12), s(4, 4, 3, 3), 1, null, s(3, 0, 1, 2), s(2, 2)),
            // strides without padding whose phases tile the input exactly (a mel spectrogram's STFT as a Conv)
            conv(s(1, 1, 640), s(33, 1, 64), 1, s(16), s(0, 0), null),
            conv(s(2, 3, 8, 12), s(5, 3, 2, 3), 1, s(2, 3), null, null),
            // depthwise: strides 1 to 3 and 5, odd and even sizes, dilations, asymmetric pads
            conv(s(1, 16, 32, 32), s(16, 1, 3, 3), 16, null, s(1, 1, 1, 1), null),
            conv(s(2, 5, 19, 23), s(5, 1, 3, 3), 5, s(2, 2), s(1, 1, 1, 1), null),
            conv(s(1, 8, 21, 40), s(8, 1, 5, 5), 8, null, s(2, 2, 2, 2), null),
            conv(s(1, 8, 20, 41), s(8, 1, 5, 5), 8, s(2, 2), s(2, 2, 2, 2), null),
            conv(s(1, 3, 17, 30), s(3, 1, 3, 3), 3, s(1, 3), s(0, 2, 1, 0), s(2, 1)),
            conv(s(1, 3, 11, 29), s(3, 1, 3, 2), 3, s(2, 5), s(1, 1, 1, 1), null),
            conv(s(1, 4, 9, 9), s(4, 1, 3, 3), 4, null, null, s(1, 3)),
            conv(s(1, 4, 70), s(4, 1, 5), 4, s(2), s(2, 1), null),
            // one and three spatial axes, auto_pad
            conv(s(2, 3, 40), s(4, 3, 5), 1, null, s(2, 2), null),
            conv(s(1, 2, 5, 6, 7), s(3, 2, 2, 3, 2), 1, s(1, 2, 2), s(1, 0, 1, 0, 1, 1), null),
            conv(s(1, 4, 3, 5, 6), s(4, 1, 3, 3, 3), 4, null, s(1, 1, 1, 1, 1, 1), null),
            // a depth of one input and one tap, padded into several output planes, or one plane that reads padding
            conv(s(2, 6, 1, 2, 4), s(3, 6, 1, 2, 2), 1, s(1, 2, 2), s(1, 1, 0, 1, 1, 0), s(2, 1, 1)),
            conv(s(1, 3, 1, 4, 4), s(2, 3, 1, 3, 3), 1, s(2, 1, 1), s(1, 1, 1, 0, 1, 1), null),
            autoPad(s(1, 3, 20, 20), s(3, 1, 3, 3), 3, s(2, 2), "SAME_LOWER"),
            autoPad(s(1, 2, 30, 30), s(4, 2, 3, 3), 1, null, "SAME_UPPER"),
            autoPad(s(1, 2, 9, 9), s(4, 2, 2, 2), 1, s(2, 2), "VALID"));

    @Test
    void everyGeometryMatchesTheDefinition() {
        for (Case c : CASES) {
            check(c, ChannelOps.NONE);
        }
    }

    @Test
    void channelOperationsAreFoldedOrAppliedInOrder() {
        ChannelOps hardSwishAffine = ChannelOps.of(List.of(
                ChannelOps.affine(new float[] {0.9f}, new float[] {0.5f}),
                ChannelOps.activation(Activation.HARD_SWISH),
                ChannelOps.affine(new float[] {0.47f}, new float[] {-0.01f})));
        float[] perChannel = uniform(32, 7);
        ChannelOps batchNormRelu = ChannelOps.of(List.of(
                ChannelOps.affine(perChannel, Arrays.copyOf(uniform(32, 8), 32)),
                ChannelOps.activation(Activation.RELU)));
        ChannelOps leakyThenMax = ChannelOps.of(List.of(
                ChannelOps.activation(Activation.leakyRelu(0.2f)),
                ChannelOps.activation(Activation.clip(-0.4f, Float.POSITIVE_INFINITY))));
        ChannelOps affineOnly = ChannelOps.of(List.of(ChannelOps.affine(null, new float[] {2f}),
                ChannelOps.affine(new float[] {-3f}, null)));
        for (ChannelOps ops : List.of(hardSwishAffine, batchNormRelu, leakyThenMax, affineOnly)) {
            check(conv(s(1, 16, 20, 20), s(32, 16, 1, 1), 1, null, null, null), ops);
            check(conv(s(1, 32, 11, 13), s(32, 1, 3, 3), 32, s(2, 2), s(1, 1, 1, 1), null), ops);
            check(conv(s(1, 8, 12, 9), s(32, 8, 3, 3), 1, null, s(1, 1, 1, 1), null), ops);
        }
    }

    @Test
    void emptyOutputsAndMismatchedShapes() {
        FloatConv conv = FloatConv.create(conv(s(0), s(3, 2, 3, 3), 1, null, null, null).attrs(), 1, s(3, 2, 3, 3),
                uniform(54, 1), null, ChannelOps.NONE);
        assertArrayEquals(s(0, 3, 2, 2), conv.run(Tensor.ofFloats(new float[0], 0, 2, 4, 4), ONE).shape());
        assertArrayEquals(s(1, 3, 0, 2), conv.run(Tensor.ofFloats(new float[16], 1, 2, 2, 4), ONE).shape());
        assertThrows(InvalidArgumentException.class, () -> conv.run(Tensor.ofFloats(new float[48], 1, 3, 4, 4),
                ONE));
        assertThrows(InvalidArgumentException.class, () -> conv.run(Tensor.ofFloats(new float[32], 2, 4, 4),
                ONE));
        Window.Attrs plain = new Window.Attrs("Conv", "NOTSET", null, null, null, null, false);
        // 3 output channels in 2 groups; a bias of the wrong length
        assertThrows(InvalidArgumentException.class, () -> FloatConv.create(plain, 2, s(3, 2, 3, 3), uniform(54, 1),
                null, ChannelOps.NONE));
        assertThrows(InvalidArgumentException.class, () -> FloatConv.create(plain, 1, s(3, 2, 3, 3), uniform(54, 1),
                new float[2], ChannelOps.NONE));
    }
}
