package io.ortex.ep.cpu.ops.quantization;

import static io.ortex.testing.OneNodeModel.run;
import static io.ortex.testing.OneNodeModel.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import org.junit.jupiter.api.Test;

/** Unit tests of the integer and quantized products. */
class QuantizedProductTest {

    /** Random 8-bit values; with {@code extreme} only the ends of the type's range, which give the largest products. */
    private static Tensor bytes(ElementType type, long[] shape, java.util.SplittableRandom r, boolean extreme) {
        byte[] v = new byte[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < v.length; i++) {
            int lo = type == ElementType.UINT8 ? 0 : -128;
            int x = extreme ? (r.nextBoolean() ? lo : lo + 255) : lo + r.nextInt(256);
            v[i] = (byte) x;
        }
        return Tensor.of(type, shape, v);
    }

    private static long value(Tensor t, int i) {
        byte b = ((byte[]) t.data())[i];
        return t.type() == ElementType.UINT8 ? b & 0xff : b;
    }

    @Test
    void matMulIntegerEqualsAReferenceProductBitForBit() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(17);
        for (int trial = 0; trial < 60; trial++) {
            ElementType at = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            ElementType bt = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            boolean extreme = trial % 3 == 0;
            int m = 1 + r.nextInt(9);
            // reductions past one exact block (514 steps for the extremes) as well as short ones
            int k = trial % 5 == 0 ? 600 + r.nextInt(1200) : 1 + r.nextInt(70);
            int n = 1 + r.nextInt(40);
            int batch = 1 + r.nextInt(3);
            Tensor a = bytes(at, new long[] {batch, m, k}, r, extreme);
            Tensor b = bytes(bt, new long[] {k, n}, r, extreme);
            Tensor azp = trial % 4 == 0 ? null : r.nextBoolean() ? bytes(at, new long[0], r, extreme)
                    : bytes(at, new long[] {m}, r, extreme);
            Tensor bzp = trial % 4 == 1 ? null : r.nextBoolean() ? bytes(bt, new long[0], r, extreme)
                    : bytes(bt, new long[] {n}, r, extreme);
            int[] want = new int[batch * m * n];
            for (int p = 0; p < batch; p++) {
                for (int i = 0; i < m; i++) {
                    long za = azp == null ? 0 : value(azp, azp.size() == 1 ? 0 : i);
                    for (int j = 0; j < n; j++) {
                        long zb = bzp == null ? 0 : value(bzp, bzp.size() == 1 ? 0 : j);
                        long sum = 0;
                        for (int q = 0; q < k; q++) {
                            sum += (value(a, (p * m + i) * k + q) - za) * (value(b, q * n + j) - zb);
                        }
                        want[(p * m + i) * n + j] = (int) sum;
                    }
                }
            }
            String what = "trial " + trial + ": " + at + " [" + batch + "," + m + "," + k + "] x " + bt + " [" + k
                    + "," + n + "]";
            Tensor[] inputs = {a, b, azp, bzp};
            assertArrayEquals(want, run1("MatMulInteger", 10, inputs).ints(), what + ", B fed at run time");
            int[] constants = bzp == null ? new int[] {1} : new int[] {1, 3};
            assertArrayEquals(want, run("MatMulInteger", 10, inputs, 1, constants).get(0).ints(),
                    what + ", B a constant weight");
        }
    }

    @Test
    void matMulIntegerSubtractsPerRowAndPerColumnZeroPoints() {
        Tensor a = Tensor.of(ElementType.UINT8, new long[] {2, 2}, new byte[] {(byte) 200, 10, 5, 7});
        Tensor b = Tensor.of(ElementType.INT8, new long[] {2, 2}, new byte[] {-3, 2, 4, -1});
        Tensor azp = Tensor.of(ElementType.UINT8, new long[] {2}, new byte[] {100, 5});
        Tensor bzp = Tensor.of(ElementType.INT8, new long[] {2}, new byte[] {1, 0});
        Tensor y = run1("MatMulInteger", 10, new Tensor[] {a, b, azp, bzp});
        assertEquals(ElementType.INT32, y.type());
        // A - zp by row: (100, -90), (0, 2); B - zp by column: (-4, 3), (2, -1)
        assertArrayEquals(new int[] {-670, 290, 6, -2}, y.ints());
    }

    @Test
    void qlinearMatMulEqualsAReferenceRequantizationBitForBit() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(31);
        for (int trial = 0; trial < 60; trial++) {
            ElementType at = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            ElementType bt = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            ElementType yt = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            boolean extreme = trial % 3 == 0;
            int m = 1 + r.nextInt(9);
            int k = trial % 5 == 0 ? 600 + r.nextInt(1200) : 1 + r.nextInt(70);
            int n = 1 + r.nextInt(40);
            int batch = 1 + r.nextInt(3);
            Tensor a = bytes(at, new long[] {batch, m, k}, r, extreme);
            Tensor b = bytes(bt, new long[] {k, n}, r, extreme);
            Tensor azp = r.nextBoolean() ? bytes(at, new long[0], r, extreme) : bytes(at, new long[] {m}, r, extreme);
            Tensor bzp = r.nextBoolean() ? bytes(bt, new long[0], r, extreme) : bytes(bt, new long[] {n}, r, extreme);
            Tensor yzp = bytes(yt, new long[0], r, false);
            float as = 0.001f + r.nextFloat() * 0.05f;
            float ys = 0.01f + r.nextFloat() * 0.5f;
            // every fourth trial a multiplier large enough to saturate most outputs
            float spread = trial % 4 == 3 ? 50f : 0.02f;
            float[] bs = new float[trial % 2 == 0 ? 1 : n];
            for (int c = 0; c < bs.length; c++) {
                bs[c] = (0.0005f + r.nextFloat()) * spread;
            }
            int lo = yt == ElementType.UINT8 ? 0 : -128;
            byte[] want = new byte[batch * m * n];
            for (int p = 0; p < batch; p++) {
                for (int i = 0; i < m; i++) {
                    long za = value(azp, azp.size() == 1 ? 0 : i);
                    for (int j = 0; j < n; j++) {
                        long zb = value(bzp, bzp.size() == 1 ? 0 : j);
                        long sum = 0;
                        for (int q = 0; q < k; q++) {
                            sum += (value(a, (p * m + i) * k + q) - za) * (value(b, q * n + j) - zb);
                        }
                        float scale = as * bs[bs.length == 1 ? 0 : j] / ys;
                        double v = Math.rint((float) (int) sum * scale) + value(yzp, 0);
                        want[(p * m + i) * n + j] = (byte) Math.max(lo, Math.min(lo + 255, v));
                    }
                }
            }
            String what = "trial " + trial + ": " + at + " [" + batch + "," + m + "," + k + "] x " + bt + " [" + k
                    + "," + n + "] -> " + yt + (bs.length == 1 ? "" : " per-column scale");
            Tensor[] inputs = {a, Tensor.ofFloats(new float[] {as}), azp, b,
                bs.length == 1 ? Tensor.ofFloats(bs) : Tensor.ofFloats(bs, n), bzp, Tensor.ofFloats(new float[] {ys}),
                yzp};
            Tensor y = run1("QLinearMatMul", 10, inputs);
            assertEquals(yt, y.type(), what);
            assertArrayEquals(want, (byte[]) y.data(), what + ", B fed at run time");
            assertArrayEquals(want, (byte[]) run("QLinearMatMul", 10, inputs, 1, new int[] {3, 4, 5}).get(0).data(),
                    what + ", B a constant weight");
        }
    }
}
