package io.ortex.ep.cpu.linalg;

/**
 * A constant left-hand operand of {@link Gemm#multiply(PackedA, PanelSource, int, int, float[], int, int, Epilogue,
 * io.ortex.api.spi.KernelContext)}, {@code m} rows by {@code k} columns (a convolution's weights: one row per output
 * channel), in the layout of the implementation in use: for the Vector API, per block of the reduction, tiles of
 * the micro-kernel's rows interleaved by step and padded with zero rows; for plain Java, the rows one after the
 * other. Pack it once, at compile time. Immutable once built; safe to share between threads.
 */
public final class PackedA {
    private final int m;
    private final int k;
    private final float[] tiles;
    private final float[] rows;

    PackedA(int m, int k, float[] tiles, float[] rows) {
        this.m = m;
        this.k = k;
        this.tiles = tiles;
        this.rows = rows;
    }

    /**
     * Gets the row count.
     *
     * @return m
     */
    public int rowCount() {
        return m;
    }

    /**
     * Gets the column count, the length of the reduction.
     *
     * @return k
     */
    public int columnCount() {
        return k;
    }

    /** The Vector API layout, or {@code null}. */
    float[] tiles() {
        return tiles;
    }

    /** The plain-Java layout (row-major, row stride k), or {@code null}. */
    float[] rows() {
        return rows;
    }
}
