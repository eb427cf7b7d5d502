package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.linalg.Elementwise;
import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Scaled dot-product attention as exporters write it out:
 * <pre>
 *   scores = MatMul(Q, Kt); scaled = Div(scores, c) | Mul(scores, c); masked = Add(scaled, mask);
 *   probs = Softmax(masked, axis = -1); out = MatMul(probs, V)
 * </pre>
 * (the scaling and the mask optional), every intermediate read only inside the pattern. One kernel computes each
 * batch (each head) on its own thread: the scores of one head stay in a scratch matrix in cache, scaled in the first
 * product's epilogue, masked and normalized row by row, then multiplied by V; the {@code [B, H, S, S]} tensors are
 * never materialized. Q, Kt and V must share their batch dimensions (no broadcasting); the mask may broadcast.
 */
final class AttentionFusion {
    /** The fusion's name. */
    static final String NAME = "Attention";

    private AttentionFusion() {
    }

    /**
     * Matches at the MatMul of Q and K.
     *
     * @param qk the anchor
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView qk) {
        if (!Pattern.is(qk, "MatMul") || qk.inputs().size() != 2 || qk.inputs().get(0) == null
                || qk.inputs().get(1) == null || qk.inputs().get(1).isConstantInitializer()) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(qk));
        ValueView v = Pattern.output(qk);
        NodeView next = Pattern.soleConsumer(v);
        float scale = 1f;
        if (Pattern.is(next, "Div") && next.inputs().get(0).name().equals(v.name())
                && Pattern.scalar(next.inputs().get(1)).isPresent()) {
            scale = 1f / Pattern.scalar(next.inputs().get(1)).get();
            nodes.add(next);
            v = Pattern.output(next);
            next = Pattern.soleConsumer(v);
        } else if (Pattern.is(next, "Mul") && Pattern.scalar(Pattern.other(next, v)).isPresent()) {
            scale = Pattern.scalar(Pattern.other(next, v)).get();
            nodes.add(next);
            v = Pattern.output(next);
            next = Pattern.soleConsumer(v);
        }
        ValueView mask = null;
        if (Pattern.is(next, "Add")) {
            mask = Pattern.other(next, v);
            if (mask == null || !Pattern.mayBeFloat(mask)) {
                return null;
            }
            nodes.add(next);
            v = Pattern.output(next);
            next = Pattern.soleConsumer(v);
        }
        if (!Pattern.is(next, "Softmax")) {
            return null;
        }
        // the axis must be the last: known here when it is -1, checked against the rank at run time otherwise
        long axis = next.intAttr("axis", next.opsetVersion() >= 13 ? -1 : 1);
        nodes.add(next);
        v = Pattern.output(next);
        NodeView pv = Pattern.soleConsumer(v);
        if (!Pattern.is(pv, "MatMul") || !pv.inputs().get(0).name().equals(v.name()) || pv.inputs().get(1) == null) {
            return null;
        }
        nodes.add(pv);
        String q = qk.inputs().get(0).name();
        String kt = qk.inputs().get(1).name();
        String maskName = mask == null ? null : mask.name();
        String vName = pv.inputs().get(1).name();
        float alpha = scale;
        return new FusionMatch(NAME, nodes, (inputNames, outputNames) -> {
            int qi = inputNames.indexOf(q);
            int ki = inputNames.indexOf(kt);
            int mi = maskName == null ? -1 : inputNames.indexOf(maskName);
            int vi = inputNames.indexOf(vName);
            return (in, ctx) -> outputNames.size() != 1 || axis != -1 && axis != in[qi].rank() - 1 ? null
                    : attention(in[qi], in[ki], mi < 0 ? null : in[mi], in[vi], alpha, ctx);
        });
    }

    private static Tensor[] attention(Tensor q, Tensor kt, Tensor mask, Tensor v, float alpha, KernelContext ctx) {
        if (q.type() != ElementType.FLOAT || kt.type() != ElementType.FLOAT || v.type() != ElementType.FLOAT
                || mask != null && mask.type() != ElementType.FLOAT) {
            return null;
        }
        int rank = q.rank();
        if (rank < 2 || kt.rank() != rank || v.rank() != rank || mask != null && mask.rank() > rank) {
            return null;
        }
        long[] batch = Arrays.copyOf(q.shape(), rank - 2);
        if (!Arrays.equals(batch, Arrays.copyOf(kt.shape(), rank - 2))
                || !Arrays.equals(batch, Arrays.copyOf(v.shape(), rank - 2))) {
            return null;
        }
        int s = (int) q.dim(rank - 2);
        int d = (int) q.dim(rank - 1);
        int s2 = (int) kt.dim(rank - 1);
        int dv = (int) v.dim(rank - 1);
        if (kt.dim(rank - 2) != d || v.dim(rank - 2) != s2) {
            return null;
        }
        MaskLayout layout = mask == null ? null : MaskLayout.of(mask.shape(), batch, s, s2);
        if (mask != null && layout == null) {
            return null;
        }
        long[] outShape = Arrays.copyOf(batch, rank);
        outShape[rank - 2] = s;
        outShape[rank - 1] = dv;
        Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, outShape);
        int batches = 1;
        for (long b : batch) {
            batches *= (int) b;
        }
        float[] qa = q.floats();
        float[] ka = kt.floats();
        float[] va = v.floats();
        float[] ma = mask == null ? null : mask.floats();
        float[] oa = out.floats();
        Epilogue scaled = new Epilogue(alpha, false, null, 0, false, io.ortex.ep.cpu.linalg.Activation.NONE);
        ctx.parallelFor(batches, 1, (from, to) -> {
            float[] scores = ctx.allocateUninitialized(ElementType.FLOAT, (long) s * s2).floats();
            for (int bt = from; bt < to; bt++) {
                Gemm.multiply(qa, bt * s * d, d, 1, s, ka, bt * d * s2, s2, 1, d, s2, scores, 0, s2, scaled, null);
                for (int i = 0; i < s; i++) {
                    int row = i * s2;
                    if (ma != null) {
                        int mo = layout.offset(bt, i);
                        if (layout.colStride() == 1) {
                            Elementwise.binary(Elementwise.Binary.ADD, scores, row, ma, mo, scores, row, s2);
                        } else {
                            Elementwise.binaryScalar(Elementwise.Binary.ADD, scores, row, ma[mo], false, scores, row,
                                    s2);
                        }
                    }
                    Elementwise.softmax(scores, row, scores, row, s2);
                }
                Gemm.multiply(scores, 0, s2, 1, s, va, bt * s2 * dv, dv, 1, s2, dv, oa, bt * s * dv, dv,
                        Epilogue.NONE, null);
            }
        });
        return new Tensor[] {out};
    }

    /**
     * Where the mask row of a batch and a query row starts, for a mask broadcast to {@code [batch..., S, S2]}.
     *
     * @param batchStrides per batch axis of the scores, the mask's stride (0 where it broadcasts)
     * @param batchDims the scores' batch axes
     * @param rowStride the mask's stride along the query rows (0 where it broadcasts)
     * @param colStride 1, or 0 when the mask has one column
     */
    private record MaskLayout(long[] batchStrides, long[] batchDims, int rowStride, int colStride) {
        static MaskLayout of(long[] mask, long[] batch, int s, int s2) {
            int rank = batch.length + 2;
            long[] full = new long[rank];
            Arrays.fill(full, 1);
            System.arraycopy(mask, 0, full, rank - mask.length, mask.length);
            long[] target = Arrays.copyOf(batch, rank);
            target[rank - 2] = s;
            target[rank - 1] = s2;
            long[] strides = new long[rank];
            long stride = 1;
            for (int i = rank - 1; i >= 0; i--) {
                if (full[i] != 1 && full[i] != target[i]) {
                    return null;
                }
                strides[i] = full[i] == 1 ? 0 : stride;
                stride *= full[i];
            }
            return new MaskLayout(Arrays.copyOf(strides, rank - 2), batch, (int) strides[rank - 2],
                    (int) strides[rank - 1] == 0 ? 0 : 1);
        }

        int offset(int bt, int row) {
            long off = 0;
            int rest = bt;
            for (int i = batchDims.length - 1; i >= 0; i--) {
                int idx = (int) (rest % batchDims[i]);
                rest /= (int) batchDims[i];
                off += idx * batchStrides[i];
            }
            return (int) off + row * rowStride;
        }
    }
}
