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
     * Describes the implementation in use, for logs and reports.
     *
     * @return the description
     */
    public static String implementation() {
        return VectorSupport.description();
    }
}
