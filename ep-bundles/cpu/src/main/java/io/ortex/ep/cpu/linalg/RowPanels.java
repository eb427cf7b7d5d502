package io.ortex.ep.cpu.linalg;

/**
 * Rows anywhere in one array as a {@link PanelSource}; the products recognize it and pack its panels with vector
 * copies.
 *
 * @param b the elements
 * @param offset added to every row start
 * @param rowStarts where each row starts
 */
record RowPanels(float[] b, int offset, int[] rowStarts) implements PanelSource {
    @Override
    public void copy(int k0, int kc, int col0, int cols, float[] dst, int dstOff, int dstStride) {
        for (int r = 0; r < kc; r++) {
            System.arraycopy(b, offset + rowStarts[k0 + r] + col0, dst, dstOff + r * dstStride, cols);
        }
    }
}
