package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;

/**
 * Materializes a strided view of a storage array as a dense row-major array: the workhorse of Transpose, Slice,
 * Expand, Tile and DepthToSpace. Axes of size 1 are dropped and axes that are contiguous in the source are merged,
 * so most views reduce to rows copied with {@link System#arraycopy}; a float32 view whose innermost source axis
 * is not innermost in the output (a real transpose) is copied in cache-sized square tiles.
 */
final class StridedCopy {
    private static final int TILE = 32;
    private static final int MIN_CHUNK_ELEMENTS = 1 << 15;

    private StridedCopy() {
    }

    /**
     * Copies a view into a new array.
     *
     * @param type the element type
     * @param src the source storage array
     * @param base the source offset of the view's first element
     * @param shape the view's shape (the output shape)
     * @param strides the source stride of each view axis (0 repeats, negative walks backwards)
     * @param ctx the kernel context, for parallel rows
     * @return the dense array
     */
    static Object copy(ElementType type, Object src, int base, long[] shape, int[] strides, KernelContext ctx) {
        int n = Tensor.checkedElementCount(shape);
        Object dst = ElementArrays.allocate(type, n, ctx, false);
        if (n == 0) {
            return dst;
        }
        // drop size-1 axes, then merge neighbours that are contiguous in the source
        long[] dims = new long[shape.length];
        int[] st = new int[shape.length];
        int rank = 0;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == 1) {
                continue;
            }
            if (rank > 0 && st[rank - 1] == strides[i] * shape[i]) {
                dims[rank - 1] *= shape[i];
                st[rank - 1] = strides[i];
                continue;
            }
            dims[rank] = shape[i];
            st[rank] = strides[i];
            rank++;
        }
        if (rank == 0) {
            System.arraycopy(src, base, dst, 0, 1);
            return dst;
        }
        int inner = (int) dims[rank - 1];
        int innerStride = st[rank - 1];
        if (innerStride != 1 && src instanceof float[] && rank >= 2) {
            int q = -1;
            for (int i = rank - 2; i >= 0; i--) {
                if (st[i] == 1) {
                    q = i;
                    break;
                }
            }
            if (q >= 0 && dims[q] >= 4 && inner >= 4) {
                tiled((float[]) src, base, dims, st, rank, q, (float[]) dst, ctx);
                return dst;
            }
        }
        int rows = n / inner;
        int[] rowBase = rowBases(base, dims, st, rank - 1, rows);
        int minChunk = Math.max(1, MIN_CHUNK_ELEMENTS / inner);
        if (rows <= minChunk) {
            ElementArrays.copyRows(src, rowBase, innerStride, inner, dst, 0, rows);
        } else {
            ctx.parallelFor(rows, minChunk,
                    (from, to) -> ElementArrays.copyRows(src, rowBase, innerStride, inner, dst, from, to));
        }
        return dst;
    }

    /**
     * Computes the source offset of every row, iterating the outer axes in row-major order.
     *
     * @param base the offset of the first element
     * @param dims the shape
     * @param st the source strides
     * @param outer the number of outer axes
     * @param rows the row count (product of the outer dimensions)
     * @return the offsets
     */
    static int[] rowBases(int base, long[] dims, int[] st, int outer, int rows) {
        int[] rowBase = new int[rows];
        int[] counter = new int[outer];
        int off = base;
        for (int r = 0; r < rows; r++) {
            rowBase[r] = off;
            for (int axis = outer - 1; axis >= 0; axis--) {
                counter[axis]++;
                off += st[axis];
                if (counter[axis] < dims[axis]) {
                    break;
                }
                off -= st[axis] * counter[axis];
                counter[axis] = 0;
            }
        }
        return rowBase;
    }

    /**
     * Copies a float view that transposes the source's contiguous axis {@code q} with the output's innermost axis,
     * in square tiles so that both reads and writes stay in cache. Bands of tiles run in parallel.
     */
    private static void tiled(float[] src, int base, long[] dims, int[] st, int rank, int q, float[] dst,
            KernelContext ctx) {
        int last = rank - 1;
        int[] outStrides = new int[rank];
        int stride = 1;
        for (int i = rank - 1; i >= 0; i--) {
            outStrides[i] = stride;
            stride *= (int) dims[i];
        }
        int a = (int) dims[q];
        int b = (int) dims[last];
        int bStride = st[last];
        int aOut = outStrides[q];
        // the remaining axes: each combination is one independent 2-D transpose
        int others = rank - 2;
        int[] oDims = new int[others];
        int[] oSrc = new int[others];
        int[] oDst = new int[others];
        int k = 0;
        int blocks = 1;
        for (int i = 0; i < last; i++) {
            if (i != q) {
                oDims[k] = (int) dims[i];
                oSrc[k] = st[i];
                oDst[k] = outStrides[i];
                blocks *= oDims[k];
                k++;
            }
        }
        int bands = (a + TILE - 1) / TILE;
        int tasks = blocks * bands;
        int minChunk = Math.max(1, MIN_CHUNK_ELEMENTS / (TILE * b));
        KernelContext.RangeBody body = (from, to) -> {
            for (int t = from; t < to; t++) {
                int blk = t / bands;
                int a0 = (t % bands) * TILE;
                int a1 = Math.min(a, a0 + TILE);
                int sOff = base;
                int dOff = 0;
                for (int axis = others - 1, rest = blk; axis >= 0; axis--) {
                    int c = rest % oDims[axis];
                    rest /= oDims[axis];
                    sOff += c * oSrc[axis];
                    dOff += c * oDst[axis];
                }
                for (int b0 = 0; b0 < b; b0 += TILE) {
                    int b1 = Math.min(b, b0 + TILE);
                    for (int i = a0; i < a1; i++) {
                        int d = dOff + i * aOut;
                        int s = sOff + i;
                        for (int j = b0; j < b1; j++) {
                            dst[d + j] = src[s + j * bStride];
                        }
                    }
                }
            }
        };
        if (tasks <= minChunk) {
            body.run(0, tasks);
        } else {
            ctx.parallelFor(tasks, minChunk, body);
        }
    }

    /**
     * Transposes a tensor.
     *
     * @param x the tensor
     * @param perm the output axis order
     * @param ctx the kernel context
     * @return the transposed tensor
     */
    static Tensor transpose(Tensor x, int[] perm, KernelContext ctx) {
        long[] in = x.shape();
        int[] inStrides = Shapes.strides(in);
        long[] out = new long[perm.length];
        int[] st = new int[perm.length];
        for (int i = 0; i < perm.length; i++) {
            out[i] = in[perm[i]];
            st[i] = inStrides[perm[i]];
        }
        return Tensor.of(x.type(), out, copy(x.type(), x.data(), 0, out, st, ctx));
    }
}
