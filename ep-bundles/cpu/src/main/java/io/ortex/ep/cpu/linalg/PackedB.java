package io.ortex.ep.cpu.linalg;

/**
 * The right-hand operand of {@link Gemm#multiply}, {@code k} rows by {@code n} columns, in the layout of the
 * implementation in use: for the Vector API, panels of {@code NR} columns (two vectors), each stored row after row
 * in one array and padded with zeros; for plain Java, one array per (panel, row). Pack constant weights once, at
 * compile time. Immutable once built; safe to share between threads.
 */
public final class PackedB {
    private final int k;
    private final int n;
    private final float[] panels;
    private final float[][] rows;

    PackedB(int k, int n, float[] panels, float[][] rows) {
        this.k = k;
        this.n = n;
        this.panels = panels;
        this.rows = rows;
    }

    /**
     * Gets the row count.
     *
     * @return k
     */
    public int rowCount() {
        return k;
    }

    /**
     * Gets the column count.
     *
     * @return n
     */
    public int columnCount() {
        return n;
    }

    /** The Vector API layout, or {@code null}. */
    float[] panels() {
        return panels;
    }

    /** The plain-Java layout, or {@code null}. */
    float[][] rows() {
        return rows;
    }
}
