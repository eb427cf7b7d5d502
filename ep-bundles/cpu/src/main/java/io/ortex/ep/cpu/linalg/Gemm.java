package io.ortex.ep.cpu.linalg;

import io.ortex.api.spi.KernelContext;

/**
 * Float32 matrix products {@code C = epilogue(A x B)} for the CPU EP's MatMul, Gemm, Conv and fused kernels. B is
 * packed ({@link #packB}), once for constant weights; A is read in place with any strides (so transposed operands
 * need no copy) and packed block by block inside the product. The work is split over the context's intra-op
 * threads. The Vector API path and the plain-Java path give results that differ only by float rounding. Stateless
 * and thread safe.
 */
public final class Gemm {
    /** Below this many multiply-adds a product with a packed left operand runs on the calling thread. */
    private static final long PARALLEL_WORK = 1L << 16;

    private Gemm() {
    }

    /**
     * Packs the right-hand operand.
     *
     * @param src the elements
     * @param offset the index of element (0, 0)
     * @param rowStride the distance between rows
     * @param colStride the distance between columns (1 for row-major, the row count's stride for a transposed
     *     source)
     * @param k the row count
     * @param n the column count
     * @return the packed operand
     */
    public static PackedB packB(float[] src, int offset, int rowStride, int colStride, int k, int n) {
        if (VectorSupport.enabled()) {
            return new PackedB(k, n, VectorGemm.packB(src, offset, rowStride, colStride, k, n), null);
        }
        return new PackedB(k, n, null, ScalarGemm.packB(src, offset, rowStride, colStride, k, n));
    }

    /**
     * Computes {@code C = epilogue(A x B)}.
     *
     * @param a the left operand's elements
     * @param aOffset the index of A(0, 0)
     * @param aRowStride the distance between rows of A
     * @param aColStride the distance between columns of A
     * @param m the row count of A and C
     * @param b the packed right operand, {@code k x n}
     * @param c the result, row-major
     * @param cOffset the index of C(0, 0)
     * @param ldc the distance between rows of C
     * @param epilogue what is done with the product before it is stored
     * @param context the intra-op threads, or {@code null} to run on the calling thread
     */
    public static void multiply(float[] a, int aOffset, int aRowStride, int aColStride, int m, PackedB b, float[] c,
                                int cOffset, int ldc, Epilogue epilogue, KernelContext context) {
        if (m == 0 || b.columnCount() == 0) {
            return;
        }
        if (b.panels() != null) {
            VectorGemm.multiply(a, aOffset, aRowStride, aColStride, m, b, c, cOffset, ldc, epilogue, context);
        } else {
            ScalarGemm.multiply(a, aOffset, aRowStride, aColStride, m, b, c, cOffset, ldc, epilogue, context);
        }
    }

    /**
     * Computes {@code C = epilogue(A x B)} for a right operand that is not packed (an activation rather than a
     * weight): B is packed on the fly into per-thread scratch. Made for products too small to split, such as one head
     * of an attention, which callers run in parallel over heads with a {@code null} context.
     *
     * @param a the left operand's elements
     * @param aOffset the index of A(0, 0)
     * @param aRowStride the distance between rows of A
     * @param aColStride the distance between columns of A
     * @param m the row count of A and C
     * @param b the right operand's elements
     * @param bOffset the index of B(0, 0)
     * @param bRowStride the distance between rows of B
     * @param bColStride the distance between columns of B
     * @param k the row count of B
     * @param n the column count of B and C
     * @param c the result, row-major
     * @param cOffset the index of C(0, 0)
     * @param ldc the distance between rows of C
     * @param epilogue what is done with the product before it is stored
     * @param context the intra-op threads, or {@code null} to run on the calling thread
     */
    public static void multiply(float[] a, int aOffset, int aRowStride, int aColStride, int m, float[] b,
                                int bOffset, int bRowStride, int bColStride, int k, int n, float[] c, int cOffset,
                                int ldc, Epilogue epilogue, KernelContext context) {
        if (m == 0 || n == 0) {
            return;
        }
        if (VectorSupport.enabled()) {
            VectorGemm.multiplyUnpacked(a, aOffset, aRowStride, aColStride, m, b, bOffset, bRowStride, bColStride, k,
                    n, c, cOffset, ldc, epilogue, context);
        } else {
            PackedB packed = new PackedB(k, n, null, ScalarGemm.packB(b, bOffset, bRowStride, bColStride, k, n));
            ScalarGemm.multiply(a, aOffset, aRowStride, aColStride, m, packed, c, cOffset, ldc, epilogue, context);
        }
    }

    /**
     * Packs a constant left-hand operand, such as a convolution's weights (one row per output channel), for
     * {@link #multiply(PackedA, PanelSource, int, int, float[], int, int, Epilogue, KernelContext)}.
     *
     * @param src the elements
     * @param offset the index of element (0, 0)
     * @param rowStride the distance between rows
     * @param colStride the distance between columns
     * @param m the row count
     * @param k the column count
     * @return the packed operand
     */
    public static PackedA packA(float[] src, int offset, int rowStride, int colStride, int m, int k) {
        if (VectorSupport.enabled()) {
            return new PackedA(m, k, VectorGemm.packA(src, offset, rowStride, colStride, m, k), null);
        }
        float[] rows = new float[Math.multiplyExact(m, k)];
        for (int i = 0; i < m; i++) {
            for (int kk = 0; kk < k; kk++) {
                rows[i * k + kk] = src[offset + i * rowStride + kk * colStride];
            }
        }
        return new PackedA(m, k, null, rows);
    }

    /**
     * Computes {@code C = epilogue(A x B[:, col0 .. col0 + n))} for a packed constant left operand and a right operand
     * read block by block from a {@link PanelSource} (an activation, or a convolution's lowered input): column
     * {@code j} of C is column {@code col0 + j} of B. The blocks of B are packed into per-thread scratch. A column
     * bias is indexed by C's columns, a row bias by A's rows.
     *
     * @param a the packed left operand, {@code m x k}
     * @param b the right operand, {@code k} rows
     * @param col0 the first column of B to multiply
     * @param n how many columns
     * @param c the result, row-major
     * @param cOff the index of C(0, 0)
     * @param ldc the distance between rows of C
     * @param epilogue what is done with the product before it is stored
     * @param context the intra-op threads (the columns are split between them), or {@code null} to run on the
     *     calling thread
     */
    public static void multiply(PackedA a, PanelSource b, int col0, int n, float[] c, int cOff, int ldc,
                                Epilogue epilogue, KernelContext context) {
        int m = a.rowCount();
        if (m == 0 || n == 0) {
            return;
        }
        int threads = context == null ? 1 : Math.max(1, context.intraOpThreads());
        if (threads == 1 || (long) m * n * Math.max(1, a.columnCount()) < PARALLEL_WORK) {
            multiplyPacked(a, b, col0, n, c, cOff, ldc, epilogue);
            return;
        }
        int align = columnAlignment();
        int panels = (n + align - 1) / align;
        int chunks = Math.min(panels, threads * 4);
        context.parallelFor(chunks, 1, (from, to) -> {
            int j0 = (int) ((long) panels * from / chunks) * align;
            int j1 = Math.min(n, (int) ((long) panels * to / chunks) * align);
            if (j1 > j0) {
                // a column bias follows the columns this chunk writes
                Epilogue e = epilogue.bias() == null || epilogue.biasPerRow() ? epilogue
                        : new Epilogue(epilogue.alpha(), epilogue.accumulate(), epilogue.bias(),
                                epilogue.biasOffset() + j0, false, epilogue.activation());
                multiplyPacked(a, b, col0 + j0, j1 - j0, c, cOff + j0, ldc, e);
            }
        });
    }

    private static void multiplyPacked(PackedA a, PanelSource b, int col0, int n, float[] c, int cOff, int ldc,
                                       Epilogue epilogue) {
        if (a.tiles() != null) {
            VectorGemm.multiplyPacked(a, b, col0, n, c, cOff, ldc, epilogue);
        } else {
            ScalarGemm.multiplyPacked(a, b, col0, n, c, cOff, ldc, epilogue);
        }
    }

    /**
     * Gets the column count that products with a {@link PackedA} operand handle best in multiples of (the width of
     * the micro-kernel's tile): callers that split columns between threads cut at multiples of it.
     *
     * @return the alignment, at least 1
     */
    public static int columnAlignment() {
        return VectorSupport.enabled() ? VectorGemm.NR : 16;
    }

    /**
     * Describes the implementation in use, for logs and reports.
     *
     * @return the description
     */
    public static String implementation() {
        return VectorSupport.description();
    }
}
