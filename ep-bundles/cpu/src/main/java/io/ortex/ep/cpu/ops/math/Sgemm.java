package io.ortex.ep.cpu.ops.math;

import java.util.Arrays;

/**
 * The float32 matrix-product micro-kernel: {@code C[i, c0 + j] (+)= alpha * sum_k A[i, k] * B[k, j]} for a range
 * of rows of A and one panel of B stored as one array per row ({@link PackedMatrix} layout). Three rows of A and
 * four steps of k are done per pass over a panel row, accumulating into per-row scratch arrays indexed without
 * offset so that the JIT vectorizes the inner loop; the reduction dimension is blocked by {@link #KC} so a block
 * of the panel stays in cache while all rows of A pass over it. Stateless and thread safe.
 */
public final class Sgemm {
    /** The depth of one block of the reduction dimension. */
    static final int KC = 256;

    private Sgemm() {
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
     * @param w the panel width (each panel row has at least {@code w} elements)
     * @param c the result, row-major with row stride {@code ldc}
     * @param cOff the index of C[0, c0], where c0 is the panel's first column
     * @param ldc the row stride of C
     * @param alpha the factor applied to the product
     * @param accumulate whether to add to C rather than overwrite it
     */
    public static void panel(float[] a, int aOff, int lda, int i0, int i1, int k, float[][] b, int bBase, int w,
            float[] c, int cOff, int ldc, float alpha, boolean accumulate) {
        float[] t0 = new float[w];
        float[] t1 = new float[w];
        float[] t2 = new float[w];
        if (k == 0) {
            if (!accumulate) {
                for (int i = i0; i < i1; i++) {
                    Arrays.fill(c, cOff + i * ldc, cOff + i * ldc + w, 0f);
                }
            }
            return;
        }
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
