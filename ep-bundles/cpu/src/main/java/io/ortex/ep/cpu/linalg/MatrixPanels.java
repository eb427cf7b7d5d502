package io.ortex.ep.cpu.linalg;

/**
 * A row-major matrix as a {@link PanelSource}; the products recognize it and pack its panels with vector copies.
 *
 * @param b the elements
 * @param offset the index of B(0, 0)
 * @param rowStride the distance between rows
 */
record MatrixPanels(float[] b, int offset, int rowStride) implements PanelSource {
    @Override
    public void copy(int k0, int kc, int col0, int cols, float[] dst, int dstOff, int dstStride) {
        int src = offset + k0 * rowStride + col0;
        for (int r = 0; r < kc; r++) {
            System.arraycopy(b, src + r * rowStride, dst, dstOff + r * dstStride, cols);
        }
    }
}
