package io.ortex.ep.cpu.ops.quantization;

import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static io.ortex.testing.OneNodeModel.run;
import static io.ortex.testing.OneNodeModel.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.proto.Onnx;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * ConvInteger and QLinearConv (with constant weights, prepared at compile time, and with weights fed at run time)
 * against a direct loop in 64-bit integers and a requantization written from ONNX Runtime's formula, bit for bit, over
 * random geometries (1 to 3 spatial axes, groups, depthwise, strides, pads, dilations), zero points (none, one value,
 * one per output channel) and the saturation edges (inputs and weights at the ends of their range, reductions long
 * enough to need several exact blocks, multipliers that push outputs past the type's range).
 */
class QuantizedConvTest {

    /** One convolution problem and its operands. */
    private record Problem(Tensor x, Tensor xZero, Tensor w, Tensor wZero, int group, long[] strides, long[] pads,
                           long[] dilations, String what) {
        Onnx.AttributeProto[] attrs() {
            return new Onnx.AttributeProto[] {attr("group", group), ints("strides", strides), ints("pads", pads),
                ints("dilations", dilations)};
        }
    }

    private static Tensor bytes(ElementType type, long[] shape, SplittableRandom r, boolean extreme) {
        byte[] v = new byte[Tensor.checkedElementCount(shape)];
        int lo = type == ElementType.UINT8 ? 0 : -128;
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (extreme ? (r.nextBoolean() ? lo : lo + 255) : lo + r.nextInt(256));
        }
        return Tensor.of(type, shape, v);
    }

    private static int value(Tensor t, int i) {
        byte b = ((byte[]) t.data())[i];
        return t.type() == ElementType.UINT8 ? b & 0xff : b;
    }

    private static Problem problem(SplittableRandom r, int trial) {
        boolean extreme = trial % 3 == 0;
        int rank = trial % 7 == 0 ? 1 : trial % 11 == 0 ? 3 : 2;
        int kind = r.nextInt(3);
        int group;
        int cing;
        int coutg;
        if (kind == 0) {
            // depthwise
            group = 1 + r.nextInt(6);
            cing = 1;
            coutg = 1;
        } else {
            group = kind == 1 ? 1 : 1 + r.nextInt(3);
            // every fifth trial a reduction long enough for several exact blocks
            cing = trial % 5 == 0 ? 60 + r.nextInt(80) : 1 + r.nextInt(6);
            coutg = 1 + r.nextInt(5);
        }
        int n = 1 + r.nextInt(2);
        long[] xShape = new long[rank + 2];
        long[] wShape = new long[rank + 2];
        xShape[0] = n;
        xShape[1] = (long) group * cing;
        wShape[0] = (long) group * coutg;
        wShape[1] = cing;
        long[] strides = new long[rank];
        long[] pads = new long[2 * rank];
        long[] dilations = new long[rank];
        for (int d = 0; d < rank; d++) {
            wShape[d + 2] = 1 + r.nextInt(rank == 3 ? 2 : 3);
            dilations[d] = 1 + r.nextInt(2);
            strides[d] = 1 + r.nextInt(2);
            pads[d] = r.nextInt(3);
            pads[d + rank] = r.nextInt(3);
            long span = (wShape[d + 2] - 1) * dilations[d] + 1;
            xShape[d + 2] = Math.max(1, span - pads[d] - pads[d + rank]) + r.nextInt(rank == 3 ? 3 : 7);
        }
        ElementType xt = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
        ElementType wt = xt == ElementType.INT8 || r.nextBoolean() ? ElementType.INT8 : ElementType.UINT8;
        Tensor x = bytes(xt, xShape, r, extreme);
        Tensor w = bytes(wt, wShape, r, extreme);
        Tensor xZero = trial % 4 == 0 ? null : bytes(xt, new long[0], r, extreme);
        Tensor wZero = trial % 4 == 1 ? null : r.nextBoolean() ? bytes(wt, new long[0], r, extreme)
                : bytes(wt, new long[] {wShape[0]}, r, extreme);
        String what = "trial " + trial + ": x " + xt + Arrays.toString(xShape) + " w " + wt + Arrays.toString(wShape)
                + " group " + group + " strides " + Arrays.toString(strides) + " pads " + Arrays.toString(pads)
                + " dilations " + Arrays.toString(dilations) + (xZero == null ? "" : " x zp")
                + (wZero == null ? "" : wZero.size() == 1 ? " w zp" : " w zp per channel");
        return new Problem(x, xZero, w, wZero, group, strides, pads, dilations, what);
    }

    /** The convolution of the centred operands in 64-bit integers, wrapped to int32 as the int32 output holds it. */
    private static int[] reference(Problem p, long[] outShape) {
        Tensor x = p.x();
        Tensor w = p.w();
        int rank = x.rank() - 2;
        int[] in = new int[3];
        int[] k = new int[3];
        int[] out = new int[3];
        int[] s = new int[3];
        int[] pb = new int[3];
        int[] dl = new int[3];
        Arrays.fill(in, 1);
        Arrays.fill(k, 1);
        Arrays.fill(out, 1);
        Arrays.fill(s, 1);
        Arrays.fill(dl, 1);
        for (int d = 0; d < rank; d++) {
            int a = 3 - rank + d;
            in[a] = (int) x.dim(d + 2);
            k[a] = (int) w.dim(d + 2);
            s[a] = (int) p.strides()[d];
            pb[a] = (int) p.pads()[d];
            dl[a] = (int) p.dilations()[d];
            out[a] = (int) ((in[a] + p.pads()[d] + p.pads()[d + rank] - dl[a] * (k[a] - 1) - 1) / s[a] + 1);
        }
        int n = (int) x.dim(0);
        int c = (int) x.dim(1);
        int cout = (int) w.dim(0);
        int cing = (int) w.dim(1);
        int coutg = cout / p.group();
        outShape[0] = n;
        outShape[1] = cout;
        for (int d = 0; d < rank; d++) {
            outShape[d + 2] = out[3 - rank + d];
        }
        int xz = p.xZero() == null ? 0 : value(p.xZero(), 0);
        int[] y = new int[n * cout * out[0] * out[1] * out[2]];
        int o = 0;
        for (int ni = 0; ni < n; ni++) {
            for (int co = 0; co < cout; co++) {
                int wz = p.wZero() == null ? 0 : value(p.wZero(), p.wZero().size() == 1 ? 0 : co);
                int g = co / coutg;
                for (int o0 = 0; o0 < out[0]; o0++) {
                    for (int o1 = 0; o1 < out[1]; o1++) {
                        for (int o2 = 0; o2 < out[2]; o2++) {
                            long sum = 0;
                            for (int ci = 0; ci < cing; ci++) {
                                for (int k0 = 0; k0 < k[0]; k0++) {
                                    for (int k1 = 0; k1 < k[1]; k1++) {
                                        for (int k2 = 0; k2 < k[2]; k2++) {
                                            int i0 = o0 * s[0] - pb[0] + k0 * dl[0];
                                            int i1 = o1 * s[1] - pb[1] + k1 * dl[1];
                                            int i2 = o2 * s[2] - pb[2] + k2 * dl[2];
                                            if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0
                                                    || i2 >= in[2]) {
                                                continue;
                                            }
                                            int xi = (((ni * c + g * cing + ci) * in[0] + i0) * in[1] + i1) * in[2]
                                                    + i2;
                                            int wi = ((co * cing + ci) * k[0] + k0) * k[1] * k[2] + k1 * k[2] + k2;
                                            sum += (long) (value(x, xi) - xz) * (value(w, wi) - wz);
                                        }
                                    }
                                }
                            }
                            y[o++] = (int) sum;
                        }
                    }
                }
            }
        }
        return y;
    }

    @Test
    void convIntegerEqualsAReferenceConvolutionBitForBit() {
        SplittableRandom r = new SplittableRandom(23);
        for (int trial = 0; trial < 90; trial++) {
            Problem p = problem(r, trial);
            long[] outShape = new long[p.x().rank()];
            int[] want = reference(p, outShape);
            Tensor[] inputs = {p.x(), p.w(), p.xZero(), p.wZero()};
            Tensor y = run1("ConvInteger", 10, inputs, p.attrs());
            assertEquals(ElementType.INT32, y.type(), p.what());
            assertArrayEquals(outShape, y.shape(), p.what());
            assertArrayEquals(want, y.ints(), p.what() + ", W fed at run time");
            int[] constants = p.wZero() == null ? new int[] {1} : new int[] {1, 3};
            assertArrayEquals(want, run("ConvInteger", 10, inputs, 1, constants, p.attrs()).get(0).ints(),
                    p.what() + ", W a constant weight");
            assertArrayEquals(want, KernelHarness.runParallel("ConvInteger", 10, inputs, constants, p.attrs()).ints(),
                    p.what() + ", W a constant weight, split over threads");
        }
    }

    @Test
    void qlinearConvEqualsAReferenceRequantizationBitForBit() {
        SplittableRandom r = new SplittableRandom(29);
        for (int trial = 0; trial < 90; trial++) {
            Problem p = problem(r, trial);
            long[] outShape = new long[p.x().rank()];
            int[] acc = reference(p, outShape);
            int cout = (int) p.w().dim(0);
            ElementType yt = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            Tensor yZero = trial % 6 == 2 ? null : bytes(yt, new long[0], r, false);
            ElementType outType = yZero == null ? p.x().type() : yt;
            int[] bias = null;
            if (trial % 3 != 1) {
                bias = new int[cout];
                for (int c = 0; c < cout; c++) {
                    bias[c] = r.nextInt(200_001) - 100_000;
                }
            }
            float xs = 0.001f + r.nextFloat() * 0.05f;
            float ys = 0.01f + r.nextFloat() * 0.5f;
            // every fourth trial a multiplier large enough to saturate most outputs
            float spread = trial % 4 == 3 ? 50f : 0.02f;
            float[] ws = new float[trial % 2 == 0 ? 1 : cout];
            for (int c = 0; c < ws.length; c++) {
                ws[c] = (0.0005f + r.nextFloat()) * spread;
            }
            Tensor wScale = ws.length == 1 ? Tensor.ofFloats(ws) : Tensor.ofFloats(ws, cout);
            Tensor wZero = p.wZero() != null ? p.wZero() : Tensor.of(p.w().type(), new long[0], new byte[1]);
            Tensor xZero = p.xZero() != null ? p.xZero() : Tensor.of(p.x().type(), new long[0], new byte[1]);
            Tensor[] inputs = {p.x(), Tensor.ofFloats(new float[] {xs}), xZero, p.w(), wScale, wZero,
                Tensor.ofFloats(new float[] {ys}), yZero, bias == null ? null : Tensor.ofInts(bias, cout)};
            int plane = (int) (acc.length / outShape[0] / cout);
            int lo = outType == ElementType.UINT8 ? 0 : -128;
            int hi = lo + 255;
            int zp = yZero == null ? 0 : value(yZero, 0);
            byte[] want = new byte[acc.length];
            for (int i = 0; i < acc.length; i++) {
                int c = (i / plane) % cout;
                float m = xs * ws[ws.length == 1 ? 0 : c] / ys;
                int a = acc[i] + (bias == null ? 0 : bias[c]);
                double q = Math.rint((float) a * m) + zp;
                want[i] = (byte) Math.max(lo, Math.min(hi, q));
            }
            String what = p.what() + " -> " + outType + (bias == null ? "" : " with bias")
                    + (ws.length == 1 ? "" : " per-channel scale");
            Tensor y = run1("QLinearConv", 10, inputs, p.attrs());
            assertEquals(outType, y.type(), what);
            assertArrayEquals(outShape, y.shape(), what);
            assertArrayEquals(want, (byte[]) y.data(), what + ", W fed at run time");
            assertArrayEquals(want, (byte[]) run("QLinearConv", 10, inputs, 1, new int[] {3, 4, 5}, p.attrs()).get(0)
                    .data(), what + ", W a constant weight");
        }
    }

    @Test
    void roundsHalfToEvenAndSaturates() {
        // a 1x1 convolution of one channel by weight 1: y = rint(x * 0.5) + 10, saturated to uint8
        Tensor x = Tensor.of(ElementType.UINT8, new long[] {1, 1, 1, 6},
                new byte[] {1, 3, 5, 7, (byte) 255, (byte) 254});
        Tensor w = Tensor.of(ElementType.UINT8, new long[] {1, 1, 1, 1}, new byte[] {1});
        Tensor zero = Tensor.of(ElementType.UINT8, new long[0], new byte[1]);
        Tensor[] inputs = {x, Tensor.ofFloats(new float[] {1f}), zero, w, Tensor.ofFloats(new float[] {0.5f}), zero,
            Tensor.ofFloats(new float[] {1f}), Tensor.of(ElementType.UINT8, new long[0], new byte[] {(byte) 130})};
        Tensor y = run1("QLinearConv", 10, inputs);
        // 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4, then + 130; 127.5 -> 128 and 127 + 130 saturate at 255
        assertArrayEquals(new byte[] {(byte) 130, (byte) 132, (byte) 132, (byte) 134, (byte) 255, (byte) 255},
                (byte[]) y.data());
    }

    @Test
    void aBiasOfTheWrongLengthIsRefused() {
        Tensor x = Tensor.of(ElementType.UINT8, new long[] {1, 1, 2, 2}, new byte[4]);
        Tensor w = Tensor.of(ElementType.UINT8, new long[] {2, 1, 1, 1}, new byte[2]);
        Tensor zero = Tensor.of(ElementType.UINT8, new long[0], new byte[1]);
        Tensor one = Tensor.ofFloats(new float[] {1f});
        Tensor[] inputs = {x, one, zero, w, one, zero, one, zero, Tensor.ofInts(new int[3], 3)};
        RuntimeException e = assertThrows(RuntimeException.class, () -> run1("QLinearConv", 10, inputs));
        assertEquals(true, String.valueOf(e.getMessage()).contains("bias"), e.getMessage());
    }

    @Test
    void anInputWithTheWrongChannelCountIsRefused() {
        Tensor x = Tensor.of(ElementType.UINT8, new long[] {1, 3, 2, 2}, new byte[12]);
        Tensor w = Tensor.of(ElementType.UINT8, new long[] {2, 2, 1, 1}, new byte[4]);
        Tensor zero = Tensor.of(ElementType.UINT8, new long[0], new byte[1]);
        for (int[] constants : new int[][] {{}, {1, 3}}) {
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> run("ConvInteger", 10, new Tensor[] {x, w, zero, zero}, 1, constants));
            assertEquals(true, String.valueOf(e.getMessage()).contains("channels"), e.getMessage());
        }
    }

    @Test
    void aKernelTooLargeForOneExactBlockIsStillExact() {
        // 17 x 17 taps of 255 x 255: one channel's partial sum passes 2^24, so no float block is exact
        byte[] full = new byte[17 * 17];
        java.util.Arrays.fill(full, (byte) 255);
        Tensor x = Tensor.of(ElementType.UINT8, new long[] {1, 1, 17, 17}, full);
        Tensor w = Tensor.of(ElementType.UINT8, new long[] {1, 1, 17, 17}, full.clone());
        Tensor[] inputs = {x, w};
        int want = 17 * 17 * 255 * 255;
        assertArrayEquals(new int[] {want}, run1("ConvInteger", 10, inputs).ints());
        assertArrayEquals(new int[] {want}, run("ConvInteger", 10, inputs, 1, new int[] {1}).get(0).ints());
    }
}
