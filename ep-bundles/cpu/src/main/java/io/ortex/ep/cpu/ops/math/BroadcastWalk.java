package io.ortex.ep.cpu.ops.math;

import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.support.Broadcast;

/**
 * Walks the output of a broadcast binary op row by row, handing each row to a typed loop: within a row each input
 * advances by a fixed stride (1 when it is contiguous there, 0 when it is broadcast). Axes of size 1 are dropped
 * and adjacent axes that both inputs traverse the same way are merged, so rows are as long as possible. Rows are
 * spread over the intra-op threads; the typed loop is called once per row, never per element.
 */
final class BroadcastWalk {
    /** Elements worth handing to another thread. */
    static final int GRAIN = 16384;

    private BroadcastWalk() {
    }

    /** A typed loop over one output row. */
    @FunctionalInterface
    interface RowBody {
        /**
         * Processes {@code len} output elements starting at {@code o}; input A's elements start at {@code offA}
         * and advance by {@code strideA}, input B's likewise.
         *
         * @param offA first element of A
         * @param strideA A's step
         * @param offB first element of B
         * @param strideB B's step
         * @param o first output element
         * @param len row length
         */
        void row(int offA, int strideA, int offB, int strideB, int o, int len);
    }

    /**
     * Walks the output of {@code a op b}.
     *
     * @param shapeA A's shape
     * @param shapeB B's shape
     * @param out the broadcast output shape
     * @param ctx the run's context, for threads
     * @param body the typed loop
     */
    static void walk(long[] shapeA, long[] shapeB, long[] out, KernelContext ctx, RowBody body) {
        int n = Tensor.checkedElementCount(out);
        if (n == 0) {
            return;
        }
        int na = Tensor.checkedElementCount(shapeA);
        int nb = Tensor.checkedElementCount(shapeB);
        if (na == n && nb == n) {
            ctx.parallelFor(n, GRAIN, (from, to) -> body.row(from, 1, from, 1, from, to - from));
            return;
        }
        if (na == n && nb == 1) {
            ctx.parallelFor(n, GRAIN, (from, to) -> body.row(from, 1, 0, 0, from, to - from));
            return;
        }
        if (na == 1 && nb == n) {
            ctx.parallelFor(n, GRAIN, (from, to) -> body.row(0, 0, from, 1, from, to - from));
            return;
        }
        int[] sa = Broadcast.strides(shapeA, out);
        int[] sb = Broadcast.strides(shapeB, out);
        // drop axes of size 1, then merge an axis into the next when both inputs step through it contiguously
        int[] dims = new int[out.length];
        int[] ma = new int[out.length];
        int[] mb = new int[out.length];
        int rank = 0;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == 1) {
                continue;
            }
            int d = (int) out[i];
            if (rank > 0 && ma[rank - 1] == sa[i] * d && mb[rank - 1] == sb[i] * d) {
                dims[rank - 1] *= d;
                ma[rank - 1] = sa[i];
                mb[rank - 1] = sb[i];
                continue;
            }
            dims[rank] = d;
            ma[rank] = sa[i];
            mb[rank] = sb[i];
            rank++;
        }
        if (rank == 0) {
            body.row(0, 0, 0, 0, 0, 1);
            return;
        }
        final int r = rank;
        final int inner = dims[r - 1];
        final int innerA = ma[r - 1];
        final int innerB = mb[r - 1];
        int rows = n / inner;
        ctx.parallelFor(rows, Math.max(1, GRAIN / inner), (from, to) -> {
            int[] counter = new int[r];
            int offA = 0;
            int offB = 0;
            int rest = from;
            for (int axis = r - 2; axis >= 0; axis--) {
                counter[axis] = rest % dims[axis];
                rest /= dims[axis];
                offA += counter[axis] * ma[axis];
                offB += counter[axis] * mb[axis];
            }
            for (int row = from; row < to; row++) {
                body.row(offA, innerA, offB, innerB, row * inner, inner);
                for (int axis = r - 2; axis >= 0; axis--) {
                    counter[axis]++;
                    offA += ma[axis];
                    offB += mb[axis];
                    if (counter[axis] < dims[axis]) {
                        break;
                    }
                    offA -= ma[axis] * counter[axis];
                    offB -= mb[axis] * counter[axis];
                    counter[axis] = 0;
                }
            }
        });
    }
}
