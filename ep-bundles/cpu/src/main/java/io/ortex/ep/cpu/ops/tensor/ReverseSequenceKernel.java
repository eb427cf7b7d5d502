package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;

/** ReverseSequence: reverses a prefix of each batch entry's sequence, for any element type. */
final class ReverseSequenceKernel {
    private ReverseSequenceKernel() {
    }

    /**
     * ReverseSequence: reverses the first {@code sequence_lens[b]} steps along {@code time_axis} for each batch
     * entry {@code b} along {@code batch_axis}.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        long timeAttr = node.intAttr("time_axis", 0);
        long batchAttr = node.intAttr("batch_axis", 1);
        if (!((timeAttr == 0 && batchAttr == 1) || (timeAttr == 1 && batchAttr == 0))) {
            throw new InvalidArgumentException("time_axis and batch_axis must be 0 and 1 in some order, got "
                    + timeAttr + " and " + batchAttr);
        }
        boolean timeFirst = timeAttr == 0;
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = x.shape();
            if (s.length < 2) {
                throw new InvalidArgumentException("ReverseSequence needs rank 2 or more");
            }
            long[] lens = Shapes.longs(in[1], "sequence_lens");
            int steps = (int) s[timeFirst ? 0 : 1];
            int batch = (int) s[timeFirst ? 1 : 0];
            if (lens.length != batch) {
                throw new InvalidArgumentException("sequence_lens has " + lens.length + " entries for a batch of "
                        + batch);
            }
            int inner = Shapes.product(s, 2, s.length);
            int[] rowBase = new int[steps * batch];
            for (int a = 0; a < s[0]; a++) {
                for (int b = 0; b < s[1]; b++) {
                    int t = timeFirst ? a : b;
                    int bi = timeFirst ? b : a;
                    long len = lens[bi];
                    if (len < 0 || len > steps) {
                        throw new InvalidArgumentException("sequence_lens entry " + len + " is out of range 0.."
                                + steps);
                    }
                    int srcT = t < len ? (int) (len - 1 - t) : t;
                    int srcA = timeFirst ? srcT : a;
                    int srcB = timeFirst ? b : srcT;
                    rowBase[a * (int) s[1] + b] = (srcA * (int) s[1] + srcB) * inner;
                }
            }
            Object dst = ElementArrays.allocate(x.type(), x.size());
            if (inner > 0) {
                ElementArrays.copyRows(x.data(), rowBase, 1, inner, dst, 0, rowBase.length);
            }
            return new Tensor[] {Tensor.of(x.type(), s, dst)};
        };
    }
}
