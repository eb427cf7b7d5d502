package io.ortex.ep.cpu.ops.controlflow;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Map;

/**
 * Scan at opset 8: a batch axis 0 on every state and scan input, the sequence on axis 1 of the scan inputs, the
 * optional {@code sequence_lens} (one length per batch entry, the full length when omitted) and the attribute
 * {@code directions} for the scan inputs. Each batch entry is scanned on its own; scan outputs are
 * {@code [batch, sequence, ...]}, zero-filled past a shorter entry's length.
 */
final class Scan8Kernel {
    private Scan8Kernel() {
    }

    static CpuKernel create(NodeView node) {
        int m = (int) node.intAttr("num_scan_inputs", -1);
        int n = node.inputs().size() - 1 - m;
        if (m < 0 || n < 0) {
            throw new InvalidModelException("Scan attribute 'num_scan_inputs' is missing or larger than the input"
                    + " count");
        }
        ScanKernel.Body body = ScanKernel.Body.of(node, n, m);
        int k = body.scanOutputs();
        boolean[] inReverse = ScanKernel.directions(node, "directions", m);
        boolean[] outReverse = new boolean[k];
        long[] outAxes = new long[k];
        int[] inAxes = new int[m];
        SubgraphSupport support = SubgraphSupport.of(node);
        int nodeOutputs = node.outputs().size();
        return (in, ctx) -> {
            if (m == 0 && n == 0) {
                return new Tensor[nodeOutputs];
            }
            Tensor any = m > 0 ? in[1 + n] : in[1];
            int batch = (int) any.dim(0);
            int maxLength = m > 0 ? (int) in[1 + n].dim(1) : 0;
            for (int j = 0; j < m; j++) {
                Tensor x = in[1 + n + j];
                if (x.rank() < 2 || x.dim(0) != batch || x.dim(1) != maxLength) {
                    throw new InvalidArgumentException("Scan scan input " + j + " of shape [" + Tensor.shapeString(
                            x.shape()) + "] is not [" + batch + ", " + maxLength + ", ...]");
                }
            }
            long[] lengths = in[0] == null ? null : WorkingArrays.longs(in[0]);
            if (lengths != null && lengths.length != batch) {
                throw new InvalidArgumentException("Scan input 'sequence_lens' has " + lengths.length
                        + " entries for a batch of " + batch);
            }
            Map<String, Tensor> outer = support.outerValues(in);
            Tensor[] out = new Tensor[n + k];
            for (int b = 0; b < batch; b++) {
                Tensor[] states = new Tensor[n];
                for (int i = 0; i < n; i++) {
                    states[i] = SubgraphSupport.slice(in[1 + i], 0, b);
                }
                Tensor[] scans = new Tensor[m];
                for (int j = 0; j < m; j++) {
                    scans[j] = SubgraphSupport.slice(in[1 + n + j], 0, b);
                }
                int length = lengths == null ? maxLength : (int) lengths[b];
                if (length < 0 || length > maxLength) {
                    throw new InvalidArgumentException("Scan input 'sequence_lens' entry " + b + " is " + length
                            + ", outside [0, " + maxLength + "]");
                }
                Tensor[] r = ScanKernel.run(ctx, body, outer, states, scans, inAxes, inReverse, length, outAxes,
                        outReverse);
                for (int q = 0; q < n + k; q++) {
                    Tensor part = r[q];
                    if (q >= n && part.dim(0) != maxLength) {
                        part = padded(part, maxLength);
                    }
                    if (b == 0) {
                        out[q] = SubgraphSupport.stacked(part.type(), part.shape(), 0, batch);
                    }
                    SubgraphSupport.place(out[q], 0, b, part);
                }
            }
            Tensor[] result = new Tensor[nodeOutputs];
            System.arraycopy(out, 0, result, 0, Math.min(nodeOutputs, out.length));
            return result;
        };
    }

    /** Extends a stacked scan output along axis 0 to {@code length} with zeros. */
    private static Tensor padded(Tensor t, int length) {
        long[] shape = t.shape().clone();
        shape[0] = length;
        Tensor p = Tensor.zeros(t.type(), shape);
        System.arraycopy(t.data(), 0, p.data(), 0, t.size());
        return p;
    }
}
