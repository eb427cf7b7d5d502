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
 * reduction is cut into blocks short enough that every partial sum is an integer of magnitude at most 2^24, and so
 * exact in float: {@code 2^24 / (255 max|B|)} steps (514 for weights within [-128, 128], so a reduction of 384 is one
 * block). Each block's product is added to the int32 result. The right operand is centred and packed once when it is
 * a constant weight.
 */
final class IntegerMatMul {
    /** Integers up to this magnitude are exact in float. */
    private static final int EXACT = 1 << 24;

    private IntegerMatMul() {
    }

    /**
     * A right operand {@code [k, n]}, centred on its zero points and packed block by block of the reduction.
     *
     * @param k the reduction length
     * @param n the column count
     * @param block the rows of each block but the last
     * @param blocks the packed blocks
     */
    record Weights(int k, int n, int block, PackedB[] blocks) {
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
            float max = 1;
            for (int r = 0; r < k; r++) {
                for (int c = 0; c < n; c++) {
                    int i = r * n + c;
                    centred[i] = value(v[i], unsigned) - zero[c];
                    max = Math.max(max, Math.abs(centred[i]));
                }
            }
            int block = Math.max(1, Math.min(k, EXACT / (255 * (int) max)));
            int count = Math.max(1, (k + block - 1) / block);
            PackedB[] blocks = new PackedB[count];
            for (int j = 0; j < count; j++) {
                int k0 = j * block;
                blocks[j] = Gemm.packB(centred, k0 * n, n, 1, Math.min(block, k - k0), n);
            }
            return new Weights(k, n, block, blocks);
        }
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
            Gemm.multiply(centred, j * w.block(), k, 1, rows, w.blocks()[j], product, 0, n, Epilogue.NONE, ctx);
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
