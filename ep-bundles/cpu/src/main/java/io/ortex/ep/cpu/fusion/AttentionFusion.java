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
 *
 * <p>A transformer's heads usually come from Transposes around the pattern: Q and V from {@code [B, S, H, D]} by
 * {@code perm = [0, 2, 1, 3]}, Kt from K's {@code [B, S, H, D]} by {@code [0, 2, 3, 1]}, and the output back to
 * {@code [B, S, H, D]} by {@code [0, 2, 1, 3]}. When all four are there, read only by the pattern, the fusion takes
 * them in too: the kernel reads each head where it lies in the {@code [B, S, H, D]} tensors (rows {@code H * D}
 * apart) and writes its output the same way, so the four copies are never made.
 */
final class AttentionFusion {
    /** The fusion's name. */
    static final String NAME = "Attention";

    /** The Transpose that makes Q (and V, and the output) out of {@code [B, S, H, D]}: heads before tokens. */
    private static final long[] Q_PERM = {0, 2, 1, 3};
    /** The Transpose that makes Kt out of K's {@code [B, S, H, D]}: heads, then K's columns, then tokens. */
    private static final long[] K_PERM = {0, 2, 3, 1};

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
        NodeView qHeads = headsTranspose(Pattern.producer(qk.inputs().get(0)), qk, Q_PERM);
        NodeView kHeads = headsTranspose(Pattern.producer(qk.inputs().get(1)), qk, K_PERM);
        NodeView vHeads = headsTranspose(Pattern.producer(pv.inputs().get(1)), pv, Q_PERM);
        NodeView outHeads = headsTranspose(Pattern.soleConsumer(Pattern.output(pv)), null, Q_PERM);
        boolean heads = qHeads != null && kHeads != null && vHeads != null && outHeads != null;
        if (heads) {
            // in the order they run: the three Transposes before the pattern, the fourth after it
            nodes.addAll(0, List.of(qHeads, kHeads, vHeads));
            nodes.add(outHeads);
        }
        String q = (heads ? qHeads : qk).inputs().get(0).name();
        String kt = (heads ? kHeads.inputs().get(0) : qk.inputs().get(1)).name();
        String maskName = mask == null ? null : mask.name();
        String vName = (heads ? vHeads.inputs().get(0) : pv.inputs().get(1)).name();
        float alpha = scale;
        return new FusionMatch(NAME, nodes, (inputNames, outputNames) -> {
            int qi = inputNames.indexOf(q);
            int ki = inputNames.indexOf(kt);
            int mi = maskName == null ? -1 : inputNames.indexOf(maskName);
            int vi = inputNames.indexOf(vName);
            return (in, ctx) -> {
                if (outputNames.size() != 1) {
                    return null;
                }
                Tensor m = mi < 0 ? null : in[mi];
                if (heads) {
                    return axis != -1 && axis != 3 ? null : attentionOfHeads(in[qi], in[ki], m, in[vi], alpha, ctx);
                }
                return axis != -1 && axis != in[qi].rank() - 1 ? null
                        : attention(in[qi], in[ki], m, in[vi], alpha, ctx);
            };
        });
    }

    /**
     * A node when it is a Transpose by {@code perm} whose output only {@code reader} reads ({@code null}: whoever
     * reads it), else {@code null}.
     */
    private static NodeView headsTranspose(NodeView n, NodeView reader, long[] perm) {
        if (!Pattern.is(n, "Transpose") || n.inputs().size() != 1 || n.inputs().get(0) == null
                || Pattern.output(n) == null || !Arrays.equals(n.intsAttr("perm", null), perm)) {
            return null;
        }
        return reader == null || Pattern.soleConsumer(Pattern.output(n)) == reader ? n : null;
    }

    /**
     * The attention of heads that lie in {@code [B, S, H, D]} tensors (Q {@code [B, S, H, D]}, K
     * {@code [B, S2, H, D]}, V {@code [B, S2, H, Dv]}), written as {@code [B, S, H, Dv]}; the mask broadcasts to the
     * scores' {@code [B, H, S, S2]}. Returns {@code null} for other shapes or types.
     */
    private static Tensor[] attentionOfHeads(Tensor q, Tensor k, Tensor mask, Tensor v, float alpha,
                                             KernelContext ctx) {
        if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
            return null;
        }
        int b = (int) q.dim(0);
        int s = (int) q.dim(1);
        int h = (int) q.dim(2);
        int d = (int) q.dim(3);
        int s2 = (int) k.dim(1);
        int dv = (int) v.dim(3);
        if (k.dim(0) != b || k.dim(2) != h || k.dim(3) != d || v.dim(0) != b || v.dim(1) != s2 || v.dim(2) != h) {
            return null;
        }
        return attention(q, k, mask, v, new long[] {b, h}, s, d, s2, dv, new long[] {b, s, h, dv},
                new Operand(h, s * h * d, d, h * d, 1), new Operand(h, s2 * h * d, d, 1, h * d),
                new Operand(h, s2 * h * dv, dv, h * dv, 1), new Operand(h, s * h * dv, dv, h * dv, 1), alpha, ctx);
    }

    /**
     * Where the matrices of one operand lie in its tensor: that of batch {@code bt} (the {@code bt / heads}th of the
     * leading axes, head {@code bt % heads}) starts at {@code (bt / heads) * batchStride + (bt % heads) * headStride},
     * its rows {@code rowStride} apart and its columns {@code colStride} apart.
     */
    private record Operand(int heads, int batchStride, int headStride, int rowStride, int colStride) {
        /** Matrices of {@code rows x cols} one after the other, as a tensor whose last two axes they are. */
        static Operand contiguous(int rows, int cols) {
            return new Operand(1, rows * cols, 0, cols, 1);
        }

        int offset(int bt) {
            return bt / heads * batchStride + bt % heads * headStride;
        }
    }

    private static Tensor[] attention(Tensor q, Tensor kt, Tensor mask, Tensor v, float alpha, KernelContext ctx) {
        int rank = q.rank();
        if (rank < 2 || kt.rank() != rank || v.rank() != rank) {
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
        long[] outShape = Arrays.copyOf(batch, rank);
        outShape[rank - 2] = s;
        outShape[rank - 1] = dv;
        return attention(q, kt, mask, v, batch, s, d, s2, dv, outShape, Operand.contiguous(s, d),
                Operand.contiguous(d, s2), Operand.contiguous(s2, dv), Operand.contiguous(s, dv), alpha, ctx);
    }

    /**
     * The attention of every batch of the scores' leading axes {@code batch}, each operand where {@code qo},
     * {@code ko}, {@code vo} and {@code oo} say; {@code null} when the mask does not broadcast to the scores.
     */
    private static Tensor[] attention(Tensor q, Tensor kt, Tensor mask, Tensor v, long[] batch, int s, int d, int s2,
                                      int dv, long[] outShape, Operand qo, Operand ko, Operand vo, Operand oo,
                                      float alpha, KernelContext ctx) {
        if (q.type() != ElementType.FLOAT || kt.type() != ElementType.FLOAT || v.type() != ElementType.FLOAT
                || mask != null && (mask.type() != ElementType.FLOAT || mask.rank() > batch.length + 2)) {
            return null;
        }
        MaskLayout layout = mask == null ? null : MaskLayout.of(mask.shape(), batch, s, s2);
        if (mask != null && layout == null) {
            return null;
        }
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
                Gemm.multiply(qa, qo.offset(bt), qo.rowStride(), qo.colStride(), s, ka, ko.offset(bt), ko.rowStride(),
                        ko.colStride(), d, s2, scores, 0, s2, scaled, null);
                int maskRow0 = ma == null ? 0 : layout.offset(bt, 0);
                for (int i = 0; i < s; i++) {
                    int row = i * s2;
                    if (ma != null) {
                        int mo = maskRow0 + i * layout.rowStride();
                        if (layout.colStride() == 1) {
                            Elementwise.binary(Elementwise.Binary.ADD, scores, row, ma, mo, scores, row, s2);
                        } else {
                            Elementwise.binaryScalar(Elementwise.Binary.ADD, scores, row, ma[mo], false, scores, row,
                                    s2);
                        }
                    }
                    Elementwise.softmax(scores, row, scores, row, s2);
                }
                Gemm.multiply(scores, 0, s2, 1, s, va, vo.offset(bt), vo.rowStride(), vo.colStride(), s2, dv, oa,
                        oo.offset(bt), oo.rowStride(), Epilogue.NONE, null);
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
