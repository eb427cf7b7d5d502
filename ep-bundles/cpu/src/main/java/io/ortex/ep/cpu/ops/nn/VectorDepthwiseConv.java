package io.ortex.ep.cpu.ops.nn;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API rows of {@link DepthwiseConv}: four vectors of outputs at a time, each tap one broadcast weight times
 * a contiguous load from the spread input rows, so four independent multiply-add chains keep the FMA units busy.
 * Loaded only when {@link io.ortex.ep.cpu.linalg.VectorSupport#enabled()}. Stateless.
 */
final class VectorDepthwiseConv {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** How far past a row's end the last vectors of a row read: the scratch rows need this much slack. */
    static final int SLACK = 4 * L;
    private static final ThreadLocal<float[]> TAIL = ThreadLocal.withInitial(() -> new float[4 * L]);

    private VectorDepthwiseConv() {
    }

    /**
     * Computes one output row.
     *
     * @param buf the spread input rows
     * @param rowBase for each kernel row that reads inside the input, where its input row starts in {@code buf}
     * @param rowTap for each such kernel row, where its taps start in {@code w}
     * @param rows how many such kernel rows
     * @param tapOff per tap along the width, its offset in {@code buf} from the row's start
     * @param w the filters
     * @param kw the taps along the width
     * @param bias the channel's bias
     * @param y the output
     * @param yo where the row starts
     * @param ow the row length
     */
    static void row(float[] buf, int[] rowBase, int[] rowTap, int rows, int[] tapOff, float[] w, int kw, float bias,
            float[] y, int yo, int ow) {
        FloatVector b = FloatVector.broadcast(S, bias);
        for (int i = 0; i < ow; i += 4 * L) {
            FloatVector a0 = b;
            FloatVector a1 = b;
            FloatVector a2 = b;
            FloatVector a3 = b;
            for (int r = 0; r < rows; r++) {
                int base = rowBase[r] + i;
                int wo = rowTap[r];
                for (int t = 0; t < kw; t++) {
                    FloatVector wv = FloatVector.broadcast(S, w[wo + t]);
                    int o = base + tapOff[t];
                    a0 = FloatVector.fromArray(S, buf, o).fma(wv, a0);
                    a1 = FloatVector.fromArray(S, buf, o + L).fma(wv, a1);
                    a2 = FloatVector.fromArray(S, buf, o + 2 * L).fma(wv, a2);
                    a3 = FloatVector.fromArray(S, buf, o + 3 * L).fma(wv, a3);
                }
            }
            if (i + 4 * L <= ow) {
                a0.intoArray(y, yo + i);
                a1.intoArray(y, yo + i + L);
                a2.intoArray(y, yo + i + 2 * L);
                a3.intoArray(y, yo + i + 3 * L);
            } else {
                // the last outputs of a row were computed reading past its end (the scratch has slack for it); they
                // go through a scratch of their own (a store into an array chosen at run time is not always
                // intrinsified) so that only the outputs that exist are stored
                float[] tail = TAIL.get();
                a0.intoArray(tail, 0);
                a1.intoArray(tail, L);
                a2.intoArray(tail, 2 * L);
                a3.intoArray(tail, 3 * L);
                System.arraycopy(tail, 0, y, yo + i, ow - i);
            }
        }
    }
}
