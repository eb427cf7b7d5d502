package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import io.ortex.ep.cpu.linalg.PackedB;

/**
 * The 8-bit integer matrix product {@code (A - a_zero_point) x (B - b_zero_point)} into int32, exactly, on the float32
 * GEMM: both operands are centred on their zero points (values in {@code [-255, 255]}, exact in float), and the
 * reduction is cut into blocks of rows of B short enough that every partial sum is an integer of magnitude at most
 * 2^24, and so exact in float: for every column, {@code 255 * sum |B - b_zero_point|} over a block's rows is at most
 * 2^24 (at least 258 rows whatever the weights; a reduction of a few thousand for typical weights, which stays one
 * block). Each block's product is added to the int32 result. The right operand is centred and packed once when it is
 * a constant weight.
 */
final class IntegerMatMul {
    /** Integers up to this magnitude are exact in float. */
    private static final long EXACT = 1L << 24;
    /** The largest magnitude of a centred 8-bit left operand. */
    private static final long INPUT_MAX = 255;

    private IntegerMatMul() {
    }

    /**
     * A right operand {@code [k, n]}, centred on its zero points and packed block by block of the reduction.
     *
     * @param k the reduction length
     * @param n the column count
     * @param starts the first row of each block, then {@code k}
     * @param blocks the packed blocks
     */
    record Weights(int k, int n, int[] starts, PackedB[] blocks) {
        /**
         * Centres and packs an 8-bit matrix.
         *
         * @param b the matrix, rank 2, uint8 or int8
         * @param zeroPoint its zero point: {@code null}, one value, or one per column
         * @return the packed operand
         */
        static Weights of(Tensor b, Tensor zeroPoint) {
            int k = (int) b.dim(0);
            int n = (int) b.dim(1);
            float[] centred = new float[k * n];
            byte[] v = (byte[]) b.data();
            boolean unsigned = b.type() == ElementType.UINT8;
            float[] zero = new float[n];
            for (int c = 0; c < n; c++) {
                zero[c] = zero(zeroPoint, zeroPoint != null && zeroPoint.size() > 1 ? c : 0);
            }
            for (int r = 0; r < k; r++) {
                for (int c = 0; c < n; c++) {
                    int i = r * n + c;
                    centred[i] = value(v[i], unsigned) - zero[c];
                }
            }
            int[] starts = blockStarts(centred, k, n);
            PackedB[] blocks = new PackedB[starts.length - 1];
            for (int j = 0; j < blocks.length; j++) {
                int k0 = starts[j];
                blocks[j] = Gemm.packB(centred, k0 * n, n, 1, starts[j + 1] - k0, n);
            }
            return new Weights(k, n, starts, blocks);
        }
    }

    /**
     * Cuts the rows of a centred right operand into blocks: a block ends before the row that would take some
     * column's {@code 255 * sum |B|} past 2^24.
     *
     * @param centred the operand, {@code k x n}, row-major
     * @param k the row count
     * @param n the column count
     * @return the first row of each block, then {@code k} (one empty block when {@code k} is 0)
     */
    private static int[] blockStarts(float[] centred, int k, int n) {
        java.util.List<Integer> starts = new java.util.ArrayList<>();
        starts.add(0);
        long[] running = new long[n];
        for (int r = 0; r < k; r++) {
            boolean fits = true;
            for (int c = 0; c < n && fits; c++) {
                fits = (running[c] + (long) Math.abs(centred[r * n + c])) * INPUT_MAX <= EXACT;
            }
            if (!fits) {
                starts.add(r);
                java.util.Arrays.fill(running, 0);
            }
            for (int c = 0; c < n; c++) {
                running[c] += (long) Math.abs(centred[r * n + c]);
            }
        }
        starts.add(k);
        return starts.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Whether a pair of operands can take this path: 8-bit integers, A of rank 1 or more, B a matrix, and zero points
     * of the shapes ONNX allows (A's: one value or one per row; B's: one value or one per column).
     *
     * @param a the left operand
     * @param aZeroPoint A's zero point, or {@code null}
     * @param b the right operand
     * @param bZeroPoint B's zero point, or {@code null}
     * @return whether {@link #multiply} takes them
     */
    static boolean fits(Tensor a, Tensor aZeroPoint, Tensor b, Tensor bZeroPoint) {
        return weightsFit(b, bZeroPoint) && eightBit(a.type()) && a.rank() >= 1 && a.dim(a.rank() - 1) == b.dim(0)
                && (aZeroPoint == null || aZeroPoint.size() == 1
                    || a.rank() >= 2 && aZeroPoint.rank() == 1 && aZeroPoint.size() == a.dim(a.rank() - 2));
    }

    /**
     * Whether a right operand can take this path: an 8-bit matrix with a zero point of one value or one per column.
     *
     * @param b the right operand
     * @param bZeroPoint its zero point, or {@code null}
     * @return whether {@link Weights#of} takes it
     */
    static boolean weightsFit(Tensor b, Tensor bZeroPoint) {
        return eightBit(b.type()) && b.rank() == 2 && (bZeroPoint == null || bZeroPoint.size() == 1
                || bZeroPoint.rank() == 1 && bZeroPoint.size() == b.dim(1));
    }

    /**
     * Multiplies.
     *
     * @param a the left operand, {@code [..., m, k]} or {@code [k]}, as {@link #fits} checked
     * @param aZeroPoint A's zero point, or {@code null}
     * @param w the right operand
     * @param ctx the run's context
     * @return the int32 product, {@code [..., m, n]} (or {@code [n]} for a vector A)
     */
    static Tensor multiply(Tensor a, Tensor aZeroPoint, Weights w, KernelContext ctx) {
        int k = w.k();
        int n = w.n();
        int rows = k == 0 ? 0 : a.size() / k;
        int m = a.rank() >= 2 ? (int) a.dim(a.rank() - 2) : 1;
        float[] ac = new float[rows * k];
        byte[] av = (byte[]) a.data();
        boolean unsigned = a.type() == ElementType.UINT8;
        boolean perRow = aZeroPoint != null && aZeroPoint.size() > 1;
        for (int r = 0; r < rows; r++) {
            float z = zero(aZeroPoint, perRow ? r % m : 0);
            for (int i = r * k, end = i + k; i < end; i++) {
                ac[i] = value(av[i], unsigned) - z;
            }
        }
        long[] shape = a.shape();
        shape[shape.length - 1] = n;
        Tensor result = ctx.allocateUninitialized(ElementType.INT32, shape);
        int[] acc = result.ints();
        if (k == 0) {
            java.util.Arrays.fill(acc, 0);
            return result;
        }
        accumulate(ac, rows, w, acc, ctx);
        return result;
    }

    /**
     * The int32 product of centred left rows and a packed right operand, block by block of the reduction.
     *
     * @param centred the left operand, {@code rows x k}, row-major, each element an integer in {@code [-255, 255]}
     * @param rows the row count
     * @param w the right operand, {@code k} of at least 1
     * @param acc the result, {@code rows x n}, row-major (overwritten)
     * @param ctx the run's context
     */
    static void accumulate(float[] centred, int rows, Weights w, int[] acc, KernelContext ctx) {
        int k = w.k();
        int n = w.n();
        float[] product = new float[rows * n];
        for (int j = 0; j < w.blocks().length; j++) {
            Gemm.multiply(centred, w.starts()[j], k, 1, rows, w.blocks()[j], product, 0, n, Epilogue.NONE, ctx);
            if (j == 0) {
                for (int i = 0; i < acc.length; i++) {
                    acc[i] = (int) product[i];
                }
            } else {
                for (int i = 0; i < acc.length; i++) {
                    acc[i] += (int) product[i];
                }
            }
        }
    }

    private static boolean eightBit(ElementType t) {
        return t == ElementType.UINT8 || t == ElementType.INT8;
    }

    private static int value(byte b, boolean unsigned) {
        return unsigned ? b & 0xff : b;
    }

    private static float zero(Tensor zeroPoint, int index) {
        return zeroPoint == null || zeroPoint.size() == 0 ? 0f : zeroPoint.getLong(index);
    }
}
