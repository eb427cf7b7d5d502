package io.ortex.ep.cpu.linalg;

import static io.ortex.ep.cpu.KernelHarness.COMMON_POOL;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.spi.KernelContext;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The product with a packed left operand and a right operand read through a {@link PanelSource} (a matrix in place,
 * rows anywhere in an array, any other source), on both implementations (the Vector API one when this JVM has the
 * module), against a double-precision product: edge sizes of the tiles, panels, reduction blocks and packed blocks
 * of B, a column window of B, every epilogue, and the columns split over threads.
 */
class PackedGemmTest {
    /** C = act(alpha A B[:, col0 ..] + (acc ? C0 : 0) + bias) in double, B row-major {@code k x ldb}. */
    private static float[] reference(float[] a, int m, int k, float[] b, int ldb, int col0, int n, float[] c0,
                                     Epilogue ep) {
        float[] c = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int kk = 0; kk < k; kk++) {
                    s += (double) a[i * k + kk] * b[kk * ldb + col0 + j];
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

    /** Every source over the same B: in place, by row starts (reversed rows kept apart), and a plain lambda. */
    private static PanelSource[] sources(float[] b, int k, int ldb) {
        // the same rows stored backwards, each at its own start, in a larger array
        float[] scattered = new float[k * (ldb + 3) + 5];
        int[] starts = new int[k];
        for (int r = 0; r < k; r++) {
            starts[r] = (k - 1 - r) * (ldb + 3) + 2;
            System.arraycopy(b, r * ldb, scattered, 5 + starts[r], ldb);
        }
        PanelSource generic = (k0, kc, col0, cols, dst, dstOff, dstStride) -> {
            for (int r = 0; r < kc; r++) {
                for (int j = 0; j < cols; j++) {
                    dst[dstOff + r * dstStride + j] = b[(k0 + r) * ldb + col0 + j];
                }
            }
        };
        return new PanelSource[] {PanelSource.matrix(b, 0, ldb), PanelSource.rows(scattered, 5, starts), generic};
    }

    private static void check(int m, int k, int n, int col0, Epilogue ep, KernelContext ctx) {
        int ldb = col0 + n + 3;
        float[] a = uniform(m * k, 1 + m * 31L + k);
        float[] b = uniform(k * ldb, 2 + n * 17L + k);
        float[] c0 = uniform(m * n, 3);
        float[] want = reference(a, m, k, b, ldb, col0, n, c0, ep);
        PackedA scalarA = new PackedA(m, k, null, a.clone());
        PackedA vectorA = VectorSupport.enabled() ? new PackedA(m, k, VectorGemm.packA(a, 0, k, 1, m, k), null) : null;
        for (PanelSource source : sources(b, k, ldb)) {
            for (PackedA packed : new PackedA[] {scalarA, vectorA, Gemm.packA(a, 0, k, 1, m, k)}) {
                if (packed == null) {
                    continue;
                }
                float[] got = Arrays.copyOf(c0, m * n + 7);
                if (packed == scalarA) {
                    ScalarGemm.multiplyPacked(packed, source, col0, n, got, 0, n, ep);
                } else if (packed == vectorA) {
                    VectorGemm.multiplyPacked(packed, source, col0, n, got, 0, n, ep);
                } else {
                    Gemm.multiply(packed, source, col0, n, got, 0, n, ep, ctx);
                }
                String what = (packed == scalarA ? "plain Java" : packed == vectorA ? "vector" : "dispatched") + " "
                        + source.getClass().getSimpleName() + " m=" + m + " k=" + k + " n=" + n + " col0=" + col0;
                for (int i = 0; i < want.length; i++) {
                    double tol = 1e-5 * k + 1e-5;
                    assertTrue(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])), what + " at " + i
                            + ": " + got[i] + " vs " + want[i]);
                }
                assertEquals(0f, got[m * n], what + ": wrote past C");
            }
        }
    }

    @Test
    void everyEdgeSizeAndSourceMatchesADoublePrecisionProduct() {
        for (int m : new int[] {1, 3, 4, 5, 24, 33}) {
            for (int k : new int[] {1, 7, 256, 300, 600}) {
                for (int n : new int[] {1, 15, 16, 17, 100, 200}) {
                    check(m, k, n, n % 3, Epilogue.NONE, null);
                }
            }
        }
        // more columns than one packed block of B holds
        check(6, 20, 4500, 5, Epilogue.NONE, null);
        check(9, 270, 700, 0, Epilogue.NONE, COMMON_POOL);
    }

    @Test
    void everyEpilogueIsApplied() {
        float[] bias = uniform(800, 9);
        for (Activation act : new Activation[] {Activation.NONE, Activation.RELU, Activation.SIGMOID,
            Activation.HARD_SWISH, Activation.leakyRelu(0.2f)}) {
            for (boolean perRow : new boolean[] {false, true}) {
                check(37, 270, 45, 2, new Epilogue(0.5f, true, bias, 3, perRow, act), COMMON_POOL);
                check(8, 16, 500, 0, Epilogue.rowBias(bias, 7, act), COMMON_POOL);
            }
        }
    }

    @Test
    void anEmptyReductionLeavesTheEpilogueOfZero() {
        float[] c = {5, 5, 5, 5};
        PackedA empty = Gemm.packA(new float[0], 0, 0, 1, 2, 0);
        Gemm.multiply(empty, PanelSource.matrix(new float[0], 0, 2), 0, 2, c, 0, 2,
                Epilogue.rowBias(new float[] {1, -1}, 0, Activation.RELU), null);
        assertEquals(1f, c[0]);
        assertEquals(1f, c[1]);
        assertEquals(0f, c[2]);
        assertEquals(0f, c[3]);
    }
}
