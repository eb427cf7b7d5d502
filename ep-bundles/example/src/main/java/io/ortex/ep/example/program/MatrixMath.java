package io.ortex.ep.example.program;

/**
 * The arithmetic the op kernels share: dot products, the "A times B-transposed" row product and transposition, on
 * float arrays with offsets. Every matrix here is row-major. Stateless; safe from any thread.
 */
final class MatrixMath {
    private MatrixMath() {
    }

    /**
     * Computes the dot product of two runs of {@code k} floats, with four partial sums so the loop pipelines well.
     *
     * @param a the first array
     * @param aOffset where the first run starts
     * @param b the second array
     * @param bOffset where the second run starts
     * @param k the length of the runs
     * @return the sum of the products
     */
    static float dot(float[] a, int aOffset, float[] b, int bOffset, int k) {
        float s0 = 0f;
        float s1 = 0f;
        float s2 = 0f;
        float s3 = 0f;
        int i = 0;
        for (; i + 3 < k; i += 4) {
            s0 += a[aOffset + i] * b[bOffset + i];
            s1 += a[aOffset + i + 1] * b[bOffset + i + 1];
            s2 += a[aOffset + i + 2] * b[bOffset + i + 2];
            s3 += a[aOffset + i + 3] * b[bOffset + i + 3];
        }
        for (; i < k; i++) {
            s0 += a[aOffset + i] * b[bOffset + i];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /**
     * Computes rows {@code [rowFrom, rowTo)} of {@code C = A * Bt^T}, where A is {@code [M, K]} and Bt, the
     * transposed right operand, is {@code [N, K]}: each element is a dot product of two contiguous rows.
     *
     * @param a A's array
     * @param aOffset where A starts
     * @param bt Bt's array
     * @param btOffset where Bt starts
     * @param c C's array, {@code [M, N]}
     * @param cOffset where C starts
     * @param rowFrom the first row of C to compute
     * @param rowTo one past the last row
     * @param n the number of columns of C
     * @param k the shared dimension
     */
    static void multiplyRows(float[] a, int aOffset, float[] bt, int btOffset, float[] c, int cOffset,
                             int rowFrom, int rowTo, int n, int k) {
        for (int i = rowFrom; i < rowTo; i++) {
            int aRow = aOffset + i * k;
            int cRow = cOffset + i * n;
            for (int j = 0; j < n; j++) {
                c[cRow + j] = dot(a, aRow, bt, btOffset + j * k, k);
            }
        }
    }

    /**
     * Transposes {@code count} consecutive {@code [rows, cols]} matrices into a new array of {@code [cols, rows]}
     * matrices.
     *
     * @param src the source array
     * @param count the number of matrices
     * @param rows the rows of each source matrix
     * @param cols the columns of each source matrix
     * @return the transposed matrices
     */
    static float[] transpose(float[] src, int count, int rows, int cols) {
        float[] dst = new float[src.length];
        int size = rows * cols;
        for (int m = 0; m < count; m++) {
            int base = m * size;
            for (int r = 0; r < rows; r++) {
                int srcRow = base + r * cols;
                for (int col = 0; col < cols; col++) {
                    dst[base + col * rows + r] = src[srcRow + col];
                }
            }
        }
        return dst;
    }

    /**
     * Gets a chunk size for {@code parallelFor} so that each chunk does at least about 32k multiply-adds.
     *
     * @param workPerItem the multiply-adds per item
     * @return the smallest chunk worth a thread, at least 1
     */
    static int minChunk(long workPerItem) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, 32_768 / Math.max(1, workPerItem)));
    }
}
