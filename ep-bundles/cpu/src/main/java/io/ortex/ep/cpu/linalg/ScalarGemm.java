package io.ortex.ep.cpu.linalg;

import io.ortex.api.spi.KernelContext;
import java.util.Arrays;

/**
 * The plain-Java matrix product, for JVMs without the Vector API. B is packed in panels of at most {@link #PANEL}
 * columns stored as one array per (panel, row); three rows of A and four steps of the reduction are done per pass
 * over a panel row, accumulating into per-row scratch arrays indexed without offset so that the JIT vectorizes the
 * inner loop on its own; the reduction is blocked by {@link #KC} so a block of the panel stays in cache while all
 * rows of A pass over it. Stateless.
 */
final class ScalarGemm {
    /** The widest panel, in columns. */
    static final int PANEL = 256;
    /** The depth of one block of the reduction. */
    static final int KC = 256;
    /** Rows of A handed to one task. */
    static final int ROW_BLOCK = 96;

    private ScalarGemm() {
    }

    static float[][] packB(float[] src, int offset, int rowStride, int colStride, int k, int n) {
        int panels = (n + PANEL - 1) / PANEL;
        float[][] rows = new float[Math.multiplyExact(panels, k)][];
        for (int p = 0; p < panels; p++) {
            int c0 = p * PANEL;
            int w = Math.min(PANEL, n - c0);
            for (int r = 0; r < k; r++) {
                float[] row = new float[w];
                int base = offset + r * rowStride + c0 * colStride;
                if (colStride == 1) {
                    System.arraycopy(src, base, row, 0, w);
                } else {
                    for (int j = 0; j < w; j++) {
                        row[j] = src[base + j * colStride];
                    }
                }
                rows[p * k + r] = row;
            }
        }
        return rows;
    }

    static void multiply(float[] a, int aOff, int ars, int acs, int m, PackedB b, float[] c, int cOff, int ldc,
                         Epilogue ep, KernelContext ctx) {
        int k = b.rowCount();
        int n = b.columnCount();
        if (k == 0) {
            epilogueOnly(m, n, c, cOff, ldc, ep);
            return;
        }
        float[] rowMajor = a;
        int base = aOff;
        int lda = ars;
        if (acs != 1) {
            rowMajor = new float[Math.multiplyExact(m, k)];
            for (int i = 0; i < m; i++) {
                for (int kk = 0; kk < k; kk++) {
                    rowMajor[i * k + kk] = a[aOff + i * ars + kk * acs];
                }
            }
            base = 0;
            lda = k;
        }
        float[] src = rowMajor;
        int srcOff = base;
        int srcLd = lda;
        int panels = (n + PANEL - 1) / PANEL;
        int rowBlocks = (m + ROW_BLOCK - 1) / ROW_BLOCK;
        KernelContext.RangeBody body = (from, to) -> {
            for (int u = from; u < to; u++) {
                int p = u % panels;
                int i0 = (u / panels) * ROW_BLOCK;
                int i1 = Math.min(m, i0 + ROW_BLOCK);
                int c0 = p * PANEL;
                int w = Math.min(PANEL, n - c0);
                panel(src, srcOff, srcLd, i0, i1, k, b.rows(), p * k, w, c, cOff + c0, ldc, ep.alpha(),
                        ep.accumulate());
                finish(c, cOff, ldc, i0, i1, c0, w, ep);
            }
        };
        if (ctx == null) {
            body.run(0, rowBlocks * panels);
        } else {
            ctx.parallelFor(rowBlocks * panels, 1, body);
        }
    }

    /** Adds the bias and applies the activation to rows {@code [i0, i1)} of columns {@code [c0, c0 + w)}. */
    private static void finish(float[] c, int cOff, int ldc, int i0, int i1, int c0, int w, Epilogue ep) {
        float[] bias = ep.bias();
        for (int i = i0; i < i1; i++) {
            int row = cOff + i * ldc + c0;
            if (bias != null) {
                if (ep.biasPerRow()) {
                    float v = bias[ep.biasOffset() + i];
                    for (int j = 0; j < w; j++) {
                        c[row + j] += v;
                    }
                } else {
                    int bo = ep.biasOffset() + c0;
                    for (int j = 0; j < w; j++) {
                        c[row + j] += bias[bo + j];
                    }
                }
            }
            ep.activation().apply(c, row, w);
        }
    }

    /** C = epilogue(0): for an empty reduction. */
    static void epilogueOnly(int m, int n, float[] c, int cOff, int ldc, Epilogue ep) {
        for (int i = 0; i < m; i++) {
            int row = cOff + i * ldc;
            if (!ep.accumulate()) {
                Arrays.fill(c, row, row + n, 0f);
            }
        }
        finish(c, cOff, ldc, 0, m, 0, n, ep);
    }

    /**
     * Multiplies rows {@code [i0, i1)} of A by one panel of B.
     *
     * @param a the left operand, row-major with row stride {@code lda}
     * @param aOff the index of A[0, 0]
     * @param lda the row stride of A
     * @param i0 the first row
     * @param i1 one past the last row
     * @param k the reduction length
     * @param b the panel rows: row {@code kk} of the panel is {@code b[bBase + kk]}
     * @param bBase the index of the panel's first row in {@code b}
     * @param w the panel width
     * @param c the result, row-major with row stride {@code ldc}
     * @param cOff the index of C[0, c0], where c0 is the panel's first column
     * @param ldc the row stride of C
     * @param alpha the factor applied to the product
     * @param accumulate whether to add to C rather than overwrite it
     */
    static void panel(float[] a, int aOff, int lda, int i0, int i1, int k, float[][] b, int bBase, int w,
                      float[] c, int cOff, int ldc, float alpha, boolean accumulate) {
        float[] t0 = new float[w];
        float[] t1 = new float[w];
        float[] t2 = new float[w];
        for (int kc0 = 0; kc0 < k; kc0 += KC) {
            int kc1 = Math.min(k, kc0 + KC);
            boolean add = accumulate || kc0 > 0;
            for (int i = i0; i < i1; i += 3) {
                int rows = Math.min(3, i1 - i);
                int a0 = aOff + i * lda;
                Arrays.fill(t0, 0f);
                if (rows == 3) {
                    Arrays.fill(t1, 0f);
                    Arrays.fill(t2, 0f);
                    rows3(a, a0, a0 + lda, a0 + 2 * lda, kc0, kc1, b, bBase, w, t0, t1, t2);
                } else if (rows == 2) {
                    Arrays.fill(t1, 0f);
                    rows2(a, a0, a0 + lda, kc0, kc1, b, bBase, w, t0, t1);
                } else {
                    rows1(a, a0, kc0, kc1, b, bBase, w, t0);
                }
                store(t0, c, cOff + i * ldc, w, alpha, add);
                if (rows > 1) {
                    store(t1, c, cOff + (i + 1) * ldc, w, alpha, add);
                }
                if (rows > 2) {
                    store(t2, c, cOff + (i + 2) * ldc, w, alpha, add);
                }
            }
        }
    }

    private static void store(float[] t, float[] c, int off, int w, float alpha, boolean add) {
        if (add) {
            if (alpha == 1f) {
                for (int j = 0; j < w; j++) {
                    c[off + j] += t[j];
                }
            } else {
                for (int j = 0; j < w; j++) {
                    c[off + j] += alpha * t[j];
                }
            }
        } else if (alpha == 1f) {
            System.arraycopy(t, 0, c, off, w);
        } else {
            for (int j = 0; j < w; j++) {
                c[off + j] = alpha * t[j];
            }
        }
    }

    private static void rows3(float[] a, int r0, int r1, int r2, int k0, int k1, float[][] b, int bBase, int w,
                              float[] t0, float[] t1, float[] t2) {
        int kk = k0;
        for (; kk + 3 < k1; kk += 4) {
            float[] b0 = b[bBase + kk];
            float[] b1 = b[bBase + kk + 1];
            float[] b2 = b[bBase + kk + 2];
            float[] b3 = b[bBase + kk + 3];
            float a00 = a[r0 + kk];
            float a01 = a[r0 + kk + 1];
            float a02 = a[r0 + kk + 2];
            float a03 = a[r0 + kk + 3];
            float a10 = a[r1 + kk];
            float a11 = a[r1 + kk + 1];
            float a12 = a[r1 + kk + 2];
            float a13 = a[r1 + kk + 3];
            float a20 = a[r2 + kk];
            float a21 = a[r2 + kk + 1];
            float a22 = a[r2 + kk + 2];
            float a23 = a[r2 + kk + 3];
            for (int j = 0; j < w; j++) {
                float v0 = b0[j];
                float v1 = b1[j];
                float v2 = b2[j];
                float v3 = b3[j];
                t0[j] += a00 * v0 + a01 * v1 + a02 * v2 + a03 * v3;
                t1[j] += a10 * v0 + a11 * v1 + a12 * v2 + a13 * v3;
                t2[j] += a20 * v0 + a21 * v1 + a22 * v2 + a23 * v3;
            }
        }
        for (; kk < k1; kk++) {
            float[] b0 = b[bBase + kk];
            float a00 = a[r0 + kk];
            float a10 = a[r1 + kk];
            float a20 = a[r2 + kk];
            for (int j = 0; j < w; j++) {
                float v0 = b0[j];
                t0[j] += a00 * v0;
                t1[j] += a10 * v0;
                t2[j] += a20 * v0;
            }
        }
    }

    private static void rows2(float[] a, int r0, int r1, int k0, int k1, float[][] b, int bBase, int w,
                              float[] t0, float[] t1) {
        int kk = k0;
        for (; kk + 3 < k1; kk += 4) {
            float[] b0 = b[bBase + kk];
            float[] b1 = b[bBase + kk + 1];
            float[] b2 = b[bBase + kk + 2];
            float[] b3 = b[bBase + kk + 3];
            float a00 = a[r0 + kk];
            float a01 = a[r0 + kk + 1];
            float a02 = a[r0 + kk + 2];
            float a03 = a[r0 + kk + 3];
            float a10 = a[r1 + kk];
            float a11 = a[r1 + kk + 1];
            float a12 = a[r1 + kk + 2];
            float a13 = a[r1 + kk + 3];
            for (int j = 0; j < w; j++) {
                float v0 = b0[j];
                float v1 = b1[j];
                float v2 = b2[j];
                float v3 = b3[j];
                t0[j] += a00 * v0 + a01 * v1 + a02 * v2 + a03 * v3;
                t1[j] += a10 * v0 + a11 * v1 + a12 * v2 + a13 * v3;
            }
        }
        for (; kk < k1; kk++) {
            float[] b0 = b[bBase + kk];
            float a00 = a[r0 + kk];
            float a10 = a[r1 + kk];
            for (int j = 0; j < w; j++) {
                float v0 = b0[j];
                t0[j] += a00 * v0;
                t1[j] += a10 * v0;
            }
        }
    }

    private static void rows1(float[] a, int r0, int k0, int k1, float[][] b, int bBase, int w, float[] t0) {
        int kk = k0;
        for (; kk + 3 < k1; kk += 4) {
            float[] b0 = b[bBase + kk];
            float[] b1 = b[bBase + kk + 1];
            float[] b2 = b[bBase + kk + 2];
            float[] b3 = b[bBase + kk + 3];
            float a00 = a[r0 + kk];
            float a01 = a[r0 + kk + 1];
            float a02 = a[r0 + kk + 2];
            float a03 = a[r0 + kk + 3];
            for (int j = 0; j < w; j++) {
                t0[j] += a00 * b0[j] + a01 * b1[j] + a02 * b2[j] + a03 * b3[j];
            }
        }
        for (; kk < k1; kk++) {
            float[] b0 = b[bBase + kk];
            float a00 = a[r0 + kk];
            for (int j = 0; j < w; j++) {
                t0[j] += a00 * b0[j];
            }
        }
    }
}
