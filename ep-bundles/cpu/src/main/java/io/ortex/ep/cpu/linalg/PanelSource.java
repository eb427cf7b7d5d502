package io.ortex.ep.cpu.linalg;

/**
 * The right-hand operand of a product with a {@link PackedA} left operand, {@code k} rows by any number of columns,
 * read block by block while the product runs: an activation tensor, or the columns a convolution lowers its input
 * to. The product asks for one block of rows and columns at a time and packs it into per-thread scratch, so the
 * operand never needs to exist as a whole matrix. Implementations must be safe to call from several threads at once
 * for disjoint blocks.
 */
@FunctionalInterface
public interface PanelSource {
    /**
     * Copies {@code B[k0 + r, col0 + j]} to {@code dst[dstOff + r * dstStride + j]} for {@code r < kc} and
     * {@code j < cols}.
     *
     * @param k0 the first row
     * @param kc how many rows
     * @param col0 the first column
     * @param cols how many columns, at most {@code dstStride}
     * @param dst the destination
     * @param dstOff where row {@code k0}, column {@code col0} goes
     * @param dstStride the distance between the destination's rows
     */
    void copy(int k0, int kc, int col0, int cols, float[] dst, int dstOff, int dstStride);

    /**
     * A row-major matrix read in place.
     *
     * @param b the elements
     * @param offset the index of B(0, 0)
     * @param rowStride the distance between rows
     * @return the source
     */
    static PanelSource matrix(float[] b, int offset, int rowStride) {
        return new MatrixPanels(b, offset, rowStride);
    }

    /**
     * Rows that start anywhere in one array, such as a convolution's input planes shifted by each kernel tap:
     * {@code B[k, j] = b[offset + rowStarts[k] + j]}.
     *
     * @param b the elements
     * @param offset added to every row start
     * @param rowStarts where each row starts, relative to {@code offset}; read, not copied, while the product runs
     * @return the source
     */
    static PanelSource rows(float[] b, int offset, int[] rowStarts) {
        return new RowPanels(b, offset, rowStarts);
    }
}
