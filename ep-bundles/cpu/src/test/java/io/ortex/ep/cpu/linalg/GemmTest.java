package io.ortex.ep.cpu.linalg;

import static io.ortex.ep.cpu.KernelHarness.COMMON_POOL;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ortex.api.spi.KernelContext;
import org.junit.jupiter.api.Test;

/**
 * The matrix product on both implementations (the Vector API one when this JVM has the module) against a product
 * computed in double precision, over the edge sizes of the blocking (tiles, panels, reduction blocks), transposed
 * operands and every epilogue.
 */
class GemmTest {
    private static final int[] SIZES = {1, 3, 4, 5, 15, 16, 17, 33, 64, 65, 100, 257, 300};

    /** C = act(alpha A B + (acc ? C0 : 0) + bias) in double, A read with strides. */
    private static float[] reference(float[] a, int ars, int acs, int m, int k, float[] b, int n, float[] c0,
                                     Epilogue ep) {
        float[] c = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int kk = 0; kk < k; kk++) {
                    s += (double) a[i * ars + kk * acs] * b[kk * n + j];
                }
                double v = ep.alpha() * s + (ep.accumulate() ? c0[i * n + j] : 0);
                if (ep.bias() != null) {
                    v += ep.biasPerRow() ? ep.bias()[ep.biasOffset() + i] : ep.bias()[ep.biasOffset() + j];
                }
                c[i * n + j] = ep.activation().applyScalar((float) v);
            }
        }
        return c;
    }

    private static void check(int m, int k, int n, boolean transA, Epilogue ep, KernelContext ctx, String what) {
        float[] a = uniform(m * k, 1 + m * 31L + k);
        float[] b = uniform(k * n, 2 + n * 17L + k);
        float[] c0 = uniform(m * n, 3);
        int ars = transA ? 1 : k;
        int acs = transA ? m : 1;
        float[] want = reference(a, ars, acs, m, k, b, n, c0, ep);
        float[][] gotBoth = new float[2][];
        PackedB scalarB = new PackedB(k, n, null, ScalarGemm.packB(b, 0, n, 1, k, n));
        gotBoth[0] = c0.clone();
        ScalarGemm.multiply(a, 0, ars, acs, m, scalarB, gotBoth[0], 0, n, ep, ctx);
        if (VectorSupport.enabled()) {
            PackedB vectorB = new PackedB(k, n, VectorGemm.packB(b, 0, n, 1, k, n), null);
            gotBoth[1] = c0.clone();
            VectorGemm.multiply(a, 0, ars, acs, m, vectorB, gotBoth[1], 0, n, ep, ctx);
        }
        for (int p = 0; p < 2; p++) {
            float[] got = gotBoth[p];
            if (got == null) {
                continue;
            }
            for (int i = 0; i < want.length; i++) {
                double tol = 1e-5 * k + 1e-5;
                assertTrue(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])),
                        (p == 0 ? "scalar " : "vector ") + what + " m=" + m + " k=" + k + " n=" + n + " at " + i
                                + ": " + got[i] + " vs " + want[i]);
            }
        }
    }

    @Test
    void theMicroKernelHasTheRowsItWasAskedForOrThoseItsVectorsSuit() {
        assumeTrue(VectorSupport.enabled(), "the Vector API is off in this run");
        String asked = System.getProperty(VectorGemm.ROWS_PROPERTY);
        // 512-bit vectors (panels of 32 floats) come with 32 registers, room for 8 rows of accumulators
        int expected = asked != null ? Integer.parseInt(asked)
                : VectorGemm.NR >= 32 && Runtime.version().feature() >= 25 ? 8 : 4;
        assertEquals(expected, VectorGemm.MR);
        assertTrue(VectorSupport.description().contains(expected + "x" + VectorGemm.NR + " micro-kernel"),
                VectorSupport.description());
    }

    @Test
    void productsOfEveryEdgeSizeMatchADoublePrecisionProduct() {
        for (int m : SIZES) {
            for (int k : new int[] {1, 7, 64, 256, 300}) {
                for (int n : SIZES) {
                    check(m, k, n, false, Epilogue.NONE, null, "plain");
                }
            }
        }
    }

    @Test
    void transposedLeftOperandsAndThreadsGiveTheSameProduct() {
        for (int m : new int[] {1, 5, 64, 130}) {
            for (int n : new int[] {1, 17, 100}) {
                check(m, 300, n, true, Epilogue.NONE, COMMON_POOL, "transposed");
                check(m, 300, n, false, Epilogue.NONE, COMMON_POOL, "threads");
            }
        }
    }

    @Test
    void wideProductsOverSeveralReductionBlocksAreSweptInStripsOfC() {
        // blocks of 128 rows by 27 panels of 16 columns: more than one strip of C holds (192 KB), over 3 blocks of
        // the reduction
        float[] bias = uniform(500, 11);
        Epilogue ep = new Epilogue(0.5f, true, bias, 2, false, Activation.GELU);
        check(128, 520, 420, false, ep, null, "one thread");
        check(1536, 520, 420, false, ep, COMMON_POOL, "threads");
        // 128 rows by 8300 steps are more than a thread packs whole: A is packed block by block
        check(128, 8300, 40, false, ep, null, "a long reduction");
    }

    @Test
    void productsWiderThanTallSplitTheirColumnsBetweenThreads() {
        // a transformer layer's shapes: one block of rows, more columns than rows, with a column bias and activation
        float[] bias = uniform(1000, 17);
        Epilogue ep = new Epilogue(1f, false, bias, 0, false, Activation.GELU);
        check(128, 384, 400, false, ep, COMMON_POOL, "128 rows");
        check(37, 300, 1000, false, ep, COMMON_POOL, "37 rows");
        check(128, 300, 100, false, ep, COMMON_POOL, "taller than wide");
        assumeTrue(VectorSupport.enabled(), "the Vector API is off in this run");
        assertTrue(VectorGemm.splitsColumns(128, 384, 2));
        assertTrue(VectorGemm.splitsColumns(1, 2, 2));
        assertFalse(VectorGemm.splitsColumns(128, 384, 1), "one thread");
        assertFalse(VectorGemm.splitsColumns(128, 128, 2), "as wide as tall");
        assertFalse(VectorGemm.splitsColumns(VectorGemm.MC_MAX + 1, 4096, 2), "more rows than a block");
    }

    @Test
    void rightOperandsPackedOnTheFlyMatchInEitherLayout() {
        float[] bias = uniform(400, 13);
        Epilogue ep = new Epilogue(1f, false, bias, 0, false, Activation.GELU);
        for (int k : new int[] {1, 7, 32, 300}) {
            for (int n : SIZES) {
                int m = 9;
                float[] a = uniform(m * k, 4 + k);
                float[] b = uniform(k * n, 5 + n);
                float[] want = reference(a, k, 1, m, k, b, n, null, ep);
                // the same B twice: row after row, and column after column (a transposed matrix), each after a gap
                int gap = 5;
                float[] rows = new float[gap + k * n];
                float[] columns = new float[gap + k * n];
                for (int r = 0; r < k; r++) {
                    for (int j = 0; j < n; j++) {
                        rows[gap + r * n + j] = b[r * n + j];
                        columns[gap + j * k + r] = b[r * n + j];
                    }
                }
                float[] byRows = new float[m * n];
                Gemm.multiply(a, 0, k, 1, m, rows, gap, n, 1, k, n, byRows, 0, n, ep, null);
                float[] byColumns = new float[m * n];
                Gemm.multiply(a, 0, k, 1, m, columns, gap, 1, k, k, n, byColumns, 0, n, ep, null);
                for (int i = 0; i < want.length; i++) {
                    double tol = (1e-5 * k + 1e-5) * Math.max(1, Math.abs(want[i]));
                    assertEquals(want[i], byRows[i], tol, "B by rows, k=" + k + " n=" + n + " at " + i);
                    assertEquals(want[i], byColumns[i], tol, "B by columns, k=" + k + " n=" + n + " at " + i);
                }
            }
        }
    }

    @Test
    void everyEpilogueIsApplied() {
        float[] bias = uniform(400, 9);
        Activation[] acts = {Activation.NONE, Activation.RELU, Activation.clip(-0.3f, 0.2f),
            Activation.leakyRelu(0.1f), Activation.SIGMOID, Activation.hardSigmoid(0.2f, 0.5f),
            Activation.HARD_SWISH, Activation.TANH, Activation.GELU};
        for (Activation act : acts) {
            for (boolean perRow : new boolean[] {false, true}) {
                Epilogue ep = new Epilogue(0.5f, true, bias, 3, perRow, act);
                check(37, 270, 45, false, ep, COMMON_POOL, act.kind() + (perRow ? " row bias" : " column bias"));
                check(8, 16, 16, false, ep, null, act.kind() + (perRow ? " row bias" : " column bias"));
            }
        }
    }

    @Test
    void anEmptyReductionLeavesTheEpilogueOfZero() {
        float[] c = {5, 5, 5, 5};
        Gemm.multiply(new float[0], 0, 0, 1, 2, Gemm.packB(new float[0], 0, 2, 1, 0, 2), c, 0, 2,
                Epilogue.columnBias(new float[] {1, -1}, Activation.RELU), null);
        assertEquals(1f, c[0]);
        assertEquals(0f, c[1]);
        assertEquals(1f, c[2]);
        assertEquals(0f, c[3]);
    }

    @Test
    void activationsAgreeOnBothPaths() {
        float[] x = uniform(1000, 5);
        for (int i = 0; i < x.length; i++) {
            x[i] *= 8;
        }
        Activation[] acts = {Activation.RELU, Activation.SIGMOID, Activation.TANH, Activation.GELU,
            Activation.HARD_SWISH};
        for (Activation act : acts) {
            float[] scalar = x.clone();
            act.applyScalar(scalar, 0, scalar.length);
            float[] dispatched = x.clone();
            act.apply(dispatched, 3, dispatched.length - 3);
            for (int i = 3; i < x.length; i++) {
                assertEquals(scalar[i], dispatched[i], 2e-6 * Math.max(1, Math.abs(scalar[i])), act + " at " + x[i]);
            }
            assertEquals(x[0], dispatched[0], "outside the range");
        }
    }
}
