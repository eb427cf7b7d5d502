package io.ortex.ep.cpu.linalg;

import io.ortex.api.spi.KernelContext;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API matrix product. B is packed in panels of {@link #NR} columns (two vectors of the preferred species),
 * each panel stored row after row; A is packed per block of at most {@link #MC_MAX} rows by {@link #KC} steps of the
 * reduction into tiles of {@link #MR} rows interleaved by step. A micro-kernel keeps an {@code MR x NR} tile of C in
 * eight vector registers over a block of the reduction (4 rows x 2 vectors, plus 2 B vectors and the broadcast A
 * values: 14 of the 16 AVX2 registers), with the epilogue in the same method so that nothing is boxed. The B panel
 * block ({@code KC x NR}) stays in L1 while every tile of the A block passes over it, the A block in L2 while every
 * panel passes. Loaded only when {@link VectorSupport#enabled()}. Stateless apart from per-thread scratch.
 */
final class VectorGemm {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Columns of a panel: two vectors. */
    static final int NR = 2 * L;
    /** Rows of a micro-tile. */
    static final int MR = 4;
    /** Steps of the reduction per block. */
    static final int KC = 256;
    /** The most rows of A packed at once. */
    static final int MC_MAX = 64;
    /** Below this many multiply-adds a product runs on the calling thread. */
    private static final long PARALLEL_WORK = 1L << 16;

    private static final ThreadLocal<float[]> A_BLOCK = ThreadLocal.withInitial(() -> new float[MC_MAX * KC]);
    private static final ThreadLocal<float[]> EDGE = ThreadLocal.withInitial(() -> new float[MR * NR]);

    private VectorGemm() {
    }

    /** Describes the vectors in use; touching this method loads the Vector API. */
    static String describe() {
        return S.vectorBitSize() + "-bit float vectors, " + MR + "x" + NR + " micro-kernel";
    }

    static float[] packB(float[] src, int offset, int rowStride, int colStride, int k, int n) {
        float[] out = new float[Math.multiplyExact(Math.multiplyExact((n + NR - 1) / NR, k), NR)];
        packInto(src, offset, rowStride, colStride, k, n, out);
        return out;
    }

    /** Packs B into {@code out} (at least {@code panels * k * NR} long), zero-padding the last panel. */
    private static void packInto(float[] src, int offset, int rowStride, int colStride, int k, int n, float[] out) {
        int panels = (n + NR - 1) / NR;
        for (int p = 0; p < panels; p++) {
            int c0 = p * NR;
            int w = Math.min(NR, n - c0);
            for (int r = 0; r < k; r++) {
                int from = offset + r * rowStride + c0 * colStride;
                int to = (p * k + r) * NR;
                if (colStride == 1) {
                    System.arraycopy(src, from, out, to, w);
                } else {
                    for (int j = 0; j < w; j++) {
                        out[to + j] = src[from + j * colStride];
                    }
                }
                for (int j = w; j < NR; j++) {
                    out[to + j] = 0f;
                }
            }
        }
    }

    /** Operands larger than this many floats are packed into a new array instead of the per-thread scratch. */
    private static final int MAX_SCRATCH_FLOATS = 1 << 22;
    private static final ThreadLocal<float[][]> B_SCRATCH = ThreadLocal.withInitial(() -> new float[1][0]);

    static void multiplyUnpacked(float[] a, int aOff, int ars, int acs, int m, float[] b, int bOff, int brs, int bcs,
                                 int k, int n, float[] c, int cOff, int ldc, Epilogue ep, KernelContext ctx) {
        int size = Math.multiplyExact(Math.multiplyExact((n + NR - 1) / NR, k), NR);
        float[] packed;
        if (size <= MAX_SCRATCH_FLOATS) {
            float[][] holder = B_SCRATCH.get();
            if (holder[0].length < size) {
                holder[0] = new float[size];
            }
            packed = holder[0];
            packInto(b, bOff, brs, bcs, k, n, packed);
        } else {
            packed = packB(b, bOff, brs, bcs, k, n);
        }
        multiply(a, aOff, ars, acs, m, new PackedB(k, n, packed, null), c, cOff, ldc, ep, ctx);
    }

    static void multiply(float[] a, int aOff, int ars, int acs, int m, PackedB b, float[] c, int cOff, int ldc,
                         Epilogue ep, KernelContext ctx) {
        int k = b.rowCount();
        int n = b.columnCount();
        if (k == 0) {
            ScalarGemm.epilogueOnly(m, n, c, cOff, ldc, ep);
            return;
        }
        int threads = ctx == null ? 1 : Math.max(1, ctx.intraOpThreads());
        if ((long) m * n * k < PARALLEL_WORK) {
            threads = 1;
        }
        int panels = (n + NR - 1) / NR;
        int blocks = (m + MC_MAX - 1) / MC_MAX;
        blocks = Math.min((m + MR - 1) / MR, (blocks + threads - 1) / threads * threads);
        int mc = ((m + blocks - 1) / blocks + MR - 1) / MR * MR;
        int rowBlocks = (m + mc - 1) / mc;
        int groups = rowBlocks >= threads ? 1 : Math.min(panels, (threads + rowBlocks - 1) / rowBlocks);
        int units = rowBlocks * groups;
        int g = groups;
        if (threads == 1 || units == 1) {
            for (int u = 0; u < units; u++) {
                unit(a, aOff, ars, acs, m, k, n, b.panels(), c, cOff, ldc, ep, mc, u / g, u % g, g, panels);
            }
            return;
        }
        ctx.parallelFor(units, 1, (from, to) -> {
            for (int u = from; u < to; u++) {
                unit(a, aOff, ars, acs, m, k, n, b.panels(), c, cOff, ldc, ep, mc, u / g, u % g, g, panels);
            }
        });
    }

    /** One block of rows times one group of panels, over the whole reduction. */
    private static void unit(float[] a, int aOff, int ars, int acs, int m, int k, int n, float[] bp, float[] c,
                             int cOff, int ldc, Epilogue ep, int mc, int rowBlock, int group, int groups,
                             int panels) {
        int i0 = rowBlock * mc;
        int rows = Math.min(mc, m - i0);
        int p0 = (int) ((long) panels * group / groups);
        int p1 = (int) ((long) panels * (group + 1) / groups);
        float[] ap = A_BLOCK.get();
        int tiles = (rows + MR - 1) / MR;
        for (int k0 = 0; k0 < k; k0 += KC) {
            int kc = Math.min(KC, k - k0);
            boolean first = k0 == 0;
            boolean last = k0 + kc >= k;
            packA(a, aOff, ars, acs, i0, rows, k0, kc, ap);
            for (int p = p0; p < p1; p++) {
                int col0 = p * NR;
                int cols = Math.min(NR, n - col0);
                int bBase = (p * k + k0) * NR;
                for (int t = 0; t < tiles; t++) {
                    int row0 = i0 + t * MR;
                    kernel(ap, t * kc * MR, bp, bBase, kc, c, cOff + row0 * ldc + col0, ldc,
                            Math.min(MR, m - row0), cols, first, last, ep, row0, col0);
                }
            }
        }
    }

    /** Packs rows {@code [i0, i0 + rows)} by steps {@code [k0, k0 + kc)} of A into tiles of MR rows. */
    private static void packA(float[] a, int aOff, int ars, int acs, int i0, int rows, int k0, int kc, float[] ap) {
        int tiles = (rows + MR - 1) / MR;
        for (int t = 0; t < tiles; t++) {
            int dst = t * kc * MR;
            int r0 = t * MR;
            if (r0 + MR <= rows) {
                int s0 = aOff + (i0 + r0) * ars + k0 * acs;
                int s1 = s0 + ars;
                int s2 = s1 + ars;
                int s3 = s2 + ars;
                for (int kk = 0; kk < kc; kk++) {
                    int d = dst + kk * MR;
                    int o = kk * acs;
                    ap[d] = a[s0 + o];
                    ap[d + 1] = a[s1 + o];
                    ap[d + 2] = a[s2 + o];
                    ap[d + 3] = a[s3 + o];
                }
            } else {
                for (int r = 0; r < MR; r++) {
                    if (r0 + r < rows) {
                        int s = aOff + (i0 + r0 + r) * ars + k0 * acs;
                        for (int kk = 0; kk < kc; kk++) {
                            ap[dst + kk * MR + r] = a[s + kk * acs];
                        }
                    } else {
                        for (int kk = 0; kk < kc; kk++) {
                            ap[dst + kk * MR + r] = 0f;
                        }
                    }
                }
            }
        }
    }

    /**
     * One MR x NR tile of C over one block of the reduction, then its epilogue: the product is stored on the first
     * block (or added, when the epilogue accumulates), added on the others, and the bias and activation applied on
     * the last.
     */
    private static void kernel(float[] ap, int aBase, float[] bp, int bBase, int kc, float[] c, int ci, int ldc,
                               int rows, int cols, boolean first, boolean last, Epilogue ep, int row0, int col0) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S);
        FloatVector c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S);
        FloatVector c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S);
        FloatVector c31 = FloatVector.zero(S);
        for (int kk = 0; kk < kc; kk++) {
            int bi = bBase + kk * NR;
            int ai = aBase + kk * MR;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai]);
            c00 = a0.fma(b0, c00);
            c01 = a0.fma(b1, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = a1.fma(b0, c10);
            c11 = a1.fma(b1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = a2.fma(b0, c20);
            c21 = a2.fma(b1, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = a3.fma(b0, c30);
            c31 = a3.fma(b1, c31);
        }
        float alpha = ep.alpha();
        boolean add = !first || ep.accumulate();
        float[] bias = last ? ep.bias() : null;
        if (rows == MR && cols == NR) {
            if (alpha != 1f) {
                c00 = c00.mul(alpha);
                c01 = c01.mul(alpha);
                c10 = c10.mul(alpha);
                c11 = c11.mul(alpha);
                c20 = c20.mul(alpha);
                c21 = c21.mul(alpha);
                c30 = c30.mul(alpha);
                c31 = c31.mul(alpha);
            }
            int i1 = ci + ldc;
            int i2 = i1 + ldc;
            int i3 = i2 + ldc;
            if (add) {
                c00 = c00.add(FloatVector.fromArray(S, c, ci));
                c01 = c01.add(FloatVector.fromArray(S, c, ci + L));
                c10 = c10.add(FloatVector.fromArray(S, c, i1));
                c11 = c11.add(FloatVector.fromArray(S, c, i1 + L));
                c20 = c20.add(FloatVector.fromArray(S, c, i2));
                c21 = c21.add(FloatVector.fromArray(S, c, i2 + L));
                c30 = c30.add(FloatVector.fromArray(S, c, i3));
                c31 = c31.add(FloatVector.fromArray(S, c, i3 + L));
            }
            if (bias != null) {
                int bo = ep.biasOffset();
                if (ep.biasPerRow()) {
                    c00 = c00.add(bias[bo + row0]);
                    c01 = c01.add(bias[bo + row0]);
                    c10 = c10.add(bias[bo + row0 + 1]);
                    c11 = c11.add(bias[bo + row0 + 1]);
                    c20 = c20.add(bias[bo + row0 + 2]);
                    c21 = c21.add(bias[bo + row0 + 2]);
                    c30 = c30.add(bias[bo + row0 + 3]);
                    c31 = c31.add(bias[bo + row0 + 3]);
                } else {
                    FloatVector v0 = FloatVector.fromArray(S, bias, bo + col0);
                    FloatVector v1 = FloatVector.fromArray(S, bias, bo + col0 + L);
                    c00 = c00.add(v0);
                    c01 = c01.add(v1);
                    c10 = c10.add(v0);
                    c11 = c11.add(v1);
                    c20 = c20.add(v0);
                    c21 = c21.add(v1);
                    c30 = c30.add(v0);
                    c31 = c31.add(v1);
                }
            }
            c00.intoArray(c, ci);
            c01.intoArray(c, ci + L);
            c10.intoArray(c, i1);
            c11.intoArray(c, i1 + L);
            c20.intoArray(c, i2);
            c21.intoArray(c, i2 + L);
            c30.intoArray(c, i3);
            c31.intoArray(c, i3 + L);
            if (last && ep.activation().kind() != Activation.Kind.NONE) {
                Activation act = ep.activation();
                act.apply(c, ci, NR);
                act.apply(c, i1, NR);
                act.apply(c, i2, NR);
                act.apply(c, i3, NR);
            }
            return;
        }
        float[] t = EDGE.get();
        c00.intoArray(t, 0);
        c01.intoArray(t, L);
        c10.intoArray(t, NR);
        c11.intoArray(t, NR + L);
        c20.intoArray(t, 2 * NR);
        c21.intoArray(t, 2 * NR + L);
        c30.intoArray(t, 3 * NR);
        c31.intoArray(t, 3 * NR + L);
        for (int r = 0; r < rows; r++) {
            int row = ci + r * ldc;
            for (int j = 0; j < cols; j++) {
                float v = alpha * t[r * NR + j];
                if (add) {
                    v += c[row + j];
                }
                if (bias != null) {
                    v += ep.biasPerRow() ? bias[ep.biasOffset() + row0 + r] : bias[ep.biasOffset() + col0 + j];
                }
                c[row + j] = v;
            }
            if (last) {
                ep.activation().apply(c, row, cols);
            }
        }
    }
}
