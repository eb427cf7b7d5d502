package io.ortex.ep.cpu.ops.quantization;

import static io.ortex.ep.cpu.KernelHarness.nanFilled;
import static io.ortex.testing.OneNodeModel.run;
import static io.ortex.testing.OneNodeModel.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The fused dynamically quantized product against the nodes it replaces, run one by one with their own kernels
 * (DynamicQuantizeLinear, MatMulInteger) and the Cast, Mul and Add done in float32 as those nodes do them: equal bit
 * for bit, over random shapes, zero points, extreme weights and reductions longer than one exact block, on the
 * implementation this JVM selects (the build runs this class once more with the Vector API turned off), on one
 * thread and split over threads, with uninitialized memory filled with NaN.
 */
class DynamicQuantizedMatMulTest {
    private static final KernelContext THREADS = nanFilled(3);
    private static final KernelContext ONE = nanFilled(1);

    private static Tensor bytes(ElementType type, long[] shape, SplittableRandom r, boolean extreme) {
        byte[] v = new byte[Tensor.checkedElementCount(shape)];
        int lo = type == ElementType.UINT8 ? 0 : -128;
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (extreme ? (r.nextBoolean() ? lo : lo + 255) : lo + r.nextInt(256));
        }
        return Tensor.of(type, shape, v);
    }

    private static Tensor floats(long[] shape, SplittableRandom r, double spread, double offset) {
        float[] v = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) ((r.nextDouble() * 2 - 1) * spread + offset);
        }
        return Tensor.ofFloats(v, shape);
    }

    /** What the unfused nodes give for one weight. */
    private static float[] unfused(Tensor x, Tensor w, Tensor wz, Tensor ws, Tensor bias) {
        Tensor[] q = run("DynamicQuantizeLinear", 11, new Tensor[] {x}, 3).toArray(new Tensor[0]);
        int[] product = run1("MatMulInteger", 10, new Tensor[] {q[0], w, q[2], wz}).ints();
        float xs = q[1].floats()[0];
        int n = (int) w.dim(1);
        float[] y = new float[product.length];
        for (int i = 0; i < y.length; i++) {
            int c = i % n;
            float scales = xs * ws.floats()[ws.size() == 1 ? 0 : c];
            y[i] = (float) product[i] * scales;
            if (bias != null) {
                y[i] = bias.floats()[c] + y[i];
            }
        }
        return y;
    }

    @Test
    void equalsTheUnfusedNodesBitForBit() {
        SplittableRandom r = new SplittableRandom(11);
        for (int trial = 0; trial < 40; trial++) {
            int k = trial % 5 == 0 ? 520 + r.nextInt(1100) : 1 + r.nextInt(90);
            boolean extreme = trial % 3 == 0;
            long[] xShape = trial % 7 == 0 ? new long[] {k} : new long[] {1 + r.nextInt(2), 1 + r.nextInt(20), k};
            // mostly signed data around 0; some all of one sign, so that the zero point sits at an end
            double offset = trial % 4 == 3 ? (r.nextBoolean() ? 4 : -4) : 0;
            Tensor x = floats(xShape, r, 1 + r.nextInt(5), offset);
            int layers = 1 + r.nextInt(3);
            List<Tensor> ws = new ArrayList<>();
            List<Tensor> zs = new ArrayList<>();
            List<Tensor> ss = new ArrayList<>();
            List<Tensor> bs = new ArrayList<>();
            for (int l = 0; l < layers; l++) {
                int n = 1 + r.nextInt(40);
                ElementType t = r.nextBoolean() ? ElementType.INT8 : ElementType.UINT8;
                boolean perColumn = r.nextBoolean();
                ws.add(bytes(t, new long[] {k, n}, r, extreme));
                zs.add(r.nextInt(4) == 0 ? null : bytes(t, perColumn ? new long[] {n} : new long[0], r, false));
                ss.add(floats(perColumn ? new long[] {n} : new long[0], r, 0.01, 0.011));
                bs.add(r.nextBoolean() ? null : floats(new long[] {n}, r, 1, 0));
                assertTrue(DynamicQuantizedMatMul.takes(ws.get(l), zs.get(l), ss.get(l), bs.get(l)));
            }
            DynamicQuantizedMatMul fused = DynamicQuantizedMatMul.compile(ws, zs, ss, bs);
            boolean[] all = new boolean[layers];
            java.util.Arrays.fill(all, true);
            for (KernelContext ctx : new KernelContext[] {ONE, THREADS}) {
                Tensor[] got = fused.compute(x, all, ctx);
                assertNotNull(got, "the fast path takes it");
                for (int l = 0; l < layers; l++) {
                    Tensor wz = zs.get(l) == null ? Tensor.of(ws.get(l).type(), new long[0], new byte[1]) : zs.get(l);
                    assertArrayEquals(unfused(x, ws.get(l), wz, ss.get(l), bs.get(l)), got[l].floats(),
                            "trial " + trial + " layer " + l + " k " + k);
                    long[] shape = x.shape();
                    shape[shape.length - 1] = ws.get(l).dim(1);
                    assertArrayEquals(shape, got[l].shape());
                }
            }
        }
    }

    @Test
    void onlyWantedOutputsAreComputedAndOtherInputsAreLeftToTheNodes() {
        SplittableRandom r = new SplittableRandom(12);
        Tensor w = bytes(ElementType.INT8, new long[] {8, 4}, r, false);
        Tensor s = floats(new long[0], r, 0.01, 0.02);
        DynamicQuantizedMatMul fused = DynamicQuantizedMatMul.compile(List.of(w, w), java.util.Arrays.asList(null,
                null), List.of(s, s), java.util.Arrays.asList(null, null));
        Tensor[] out = fused.compute(floats(new long[] {3, 8}, r, 1, 0), new boolean[] {false, true}, ONE);
        assertNull(out[0]);
        assertNotNull(out[1]);
        assertNull(fused.compute(floats(new long[] {3, 9}, r, 1, 0), new boolean[] {true, true}, ONE),
                "another reduction length");
        assertNull(fused.compute(Tensor.of(ElementType.INT32, new long[] {8}, new int[8]), new boolean[] {true,
            true}, ONE), "not float");
        // what the matcher is told to decline
        assertFalse(DynamicQuantizedMatMul.takes(w, null, floats(new long[] {5}, r, 1, 0), null), "scale of 5");
        assertFalse(DynamicQuantizedMatMul.takes(w, null, floats(new long[] {1, 4}, r, 1, 0), null), "rank-2 scale");
        assertFalse(DynamicQuantizedMatMul.takes(w, null, s, floats(new long[] {3}, r, 1, 0)), "bias of 3");
        assertFalse(DynamicQuantizedMatMul.takes(w, null, s, floats(new long[] {1, 4}, r, 1, 0)), "rank-2 bias");
        assertFalse(DynamicQuantizedMatMul.takes(Tensor.of(ElementType.INT32, new long[] {2, 2}, new int[4]), null,
                s, null), "int32 weight");
    }
}
