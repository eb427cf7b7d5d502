package io.ortex.ep.cpu.ops.math;

/**
 * The right-hand operand of a float32 matrix product, {@code k} rows by {@code n} columns, cut into panels of at
 * most {@link #PANEL} columns and stored as one array per (panel, row). {@link Sgemm} reads each such row with no
 * offset, which lets the JIT vectorize its inner loop. Immutable once built; safe to share between threads.
 */
public final class PackedMatrix {
    /** The widest panel, in columns. */
    public static final int PANEL = 256;

    private final int k;
    private final int n;
    private final float[][] rows;

    private PackedMatrix(int k, int n, float[][] rows) {
        this.k = k;
        this.n = n;
        this.rows = rows;
    }

    /**
     * Packs a matrix read with arbitrary strides, so that transposed operands pack without a copy.
     *
     * @param src the elements
     * @param offset the index of element (0, 0)
     * @param rowStride the distance between rows
     * @param colStride the distance between columns
     * @param k the row count
     * @param n the column count
     * @return the packed matrix
     */
    static PackedMatrix pack(float[] src, int offset, int rowStride, int colStride, int k, int n) {
        int panels = panels(n);
        float[][] rows = new float[panels * k][];
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
        return new PackedMatrix(k, n, rows);
    }

    /**
     * Counts the panels of a matrix with {@code n} columns.
     *
     * @param n the column count
     * @return the panel count
     */
    public static int panels(int n) {
        return (n + PANEL - 1) / PANEL;
    }

    int rowCount() {
        return k;
    }

    int columnCount() {
        return n;
    }

    int panelCount() {
        return panels(n);
    }

    /** The rows of all panels; panel {@code p} starts at index {@code p * rowCount()}. */
    float[][] rows() {
        return rows;
    }

    /** The width of panel {@code p}. */
    int width(int p) {
        return Math.min(PANEL, n - p * PANEL);
    }
}
