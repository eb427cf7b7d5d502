package io.ortex.ep.cpu.ops.controlflow;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import java.util.Map;

/**
 * Scan from opset 9: N state values and M scan inputs; each iteration runs {@code body} on the states and one
 * slice of every scan input (along {@code scan_input_axes}, backwards where {@code scan_input_directions} is 1) and
 * gets the next states and K scan-output slices, stacked along {@code scan_output_axes} (in reverse order where
 * {@code scan_output_directions} is 1). Negative axes count from the end (opset 11).
 */
final class ScanKernel {
    private ScanKernel() {
    }

    /** The parsed body interface of one Scan node. */
    record Body(GraphView graph, String[] inputs, String[] outputs, int states, int scanInputs, int scanOutputs) {
        static Body of(NodeView node, int states, int scanInputs) {
            GraphView g = SubgraphSupport.subgraph(node, "body");
            String[] in = SubgraphSupport.inputNames(g);
            if (in.length != states + scanInputs) {
                throw new InvalidModelException("Scan body has " + in.length + " inputs, expected " + states
                        + " states and " + scanInputs + " scan inputs");
            }
            int k = g.outputs().size() - states;
            if (k < 0) {
                throw new InvalidModelException("Scan body has " + g.outputs().size() + " outputs, fewer than its "
                        + states + " states");
            }
            String[] out = new String[g.outputs().size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = g.outputs().get(i).name();
            }
            return new Body(g, in, out, states, scanInputs, k);
        }
    }

    static CpuKernel create(NodeView node) {
        int m = (int) node.intAttr("num_scan_inputs", -1);
        if (m < 0 || m > node.inputs().size()) {
            throw new InvalidModelException("Scan attribute 'num_scan_inputs' is missing or larger than the input"
                    + " count");
        }
        int n = node.inputs().size() - m;
        Body body = Body.of(node, n, m);
        int k = body.scanOutputs();
        long[] inAxes = axes(node, "scan_input_axes", m, 0);
        boolean[] inReverse = directions(node, "scan_input_directions", m);
        long[] outAxes = axes(node, "scan_output_axes", k, 0);
        boolean[] outReverse = directions(node, "scan_output_directions", k);
        SubgraphSupport support = SubgraphSupport.of(node);
        int nodeOutputs = node.outputs().size();
        return (in, ctx) -> {
            Tensor[] states = new Tensor[n];
            System.arraycopy(in, 0, states, 0, n);
            Tensor[] scans = new Tensor[m];
            int[] axes = new int[m];
            int length = -1;
            for (int j = 0; j < m; j++) {
                scans[j] = in[n + j];
                if (scans[j] == null) {
                    throw new InvalidArgumentException("Scan scan input " + j + " is missing");
                }
                int r = scans[j].rank();
                long a = inAxes[j] < 0 ? inAxes[j] + r : inAxes[j];
                if (a < 0 || a >= r) {
                    throw new InvalidArgumentException("Scan attribute 'scan_input_axes' value " + inAxes[j]
                            + " is out of range for scan input " + j + " of rank " + r);
                }
                axes[j] = (int) a;
                int len = (int) scans[j].dim(axes[j]);
                if (length >= 0 && len != length) {
                    throw new InvalidArgumentException("Scan scan inputs have different sequence lengths " + length
                            + " and " + len);
                }
                length = len;
            }
            Tensor[] result = run(ctx, body, support.outerValues(in), states, scans, axes, inReverse,
                    Math.max(length, 0), outAxes, outReverse);
            Tensor[] out = new Tensor[nodeOutputs];
            System.arraycopy(result, 0, out, 0, Math.min(nodeOutputs, result.length));
            return out;
        };
    }

    /**
     * Runs the iterations of one scan.
     *
     * @param ctx the kernel context
     * @param body the body
     * @param outer the outer-scope values
     * @param states the initial states
     * @param scans the scan inputs
     * @param axes each scan input's axis (non-negative)
     * @param inReverse whether each scan input is read backwards
     * @param length the sequence length
     * @param outAxes each scan output's axis (may be negative)
     * @param outReverse whether each scan output is written backwards
     * @return the final states, then the stacked scan outputs
     */
    static Tensor[] run(KernelContext ctx, Body body, Map<String, Tensor> outer, Tensor[] states, Tensor[] scans,
            int[] axes, boolean[] inReverse, int length, long[] outAxes, boolean[] outReverse) {
        int n = body.states();
        int m = body.scanInputs();
        int k = body.scanOutputs();
        Tensor[] state = states.clone();
        Tensor[] stacks = new Tensor[k];
        int[] stackAxes = new int[k];
        for (int t = 0; t < length; t++) {
            Map<String, Tensor> values = new java.util.HashMap<>(outer);
            for (int i = 0; i < n; i++) {
                values.put(body.inputs()[i], state[i]);
            }
            for (int j = 0; j < m; j++) {
                int at = inReverse[j] ? length - 1 - t : t;
                values.put(body.inputs()[n + j], SubgraphSupport.slice(scans[j], axes[j], at));
            }
            Map<String, Tensor> result = ctx.runSubgraph(body.graph(), values);
            for (int i = 0; i < n; i++) {
                state[i] = result.get(body.outputs()[i]);
            }
            for (int q = 0; q < k; q++) {
                Tensor s = result.get(body.outputs()[n + q]);
                if (t == 0) {
                    int r = s.rank() + 1;
                    long a = outAxes[q] < 0 ? outAxes[q] + r : outAxes[q];
                    if (a < 0 || a >= r) {
                        throw new InvalidArgumentException("Scan attribute 'scan_output_axes' value " + outAxes[q]
                                + " is out of range for scan output " + q + " of rank " + r);
                    }
                    stackAxes[q] = (int) a;
                    stacks[q] = SubgraphSupport.stacked(s.type(), s.shape(), stackAxes[q], length);
                }
                SubgraphSupport.place(stacks[q], stackAxes[q], outReverse[q] ? length - 1 - t : t, s);
            }
        }
        Tensor[] out = new Tensor[n + k];
        System.arraycopy(state, 0, out, 0, n);
        for (int q = 0; q < k; q++) {
            out[n + q] = stacks[q] != null ? stacks[q]
                    : SubgraphSupport.emptyStack(body.graph().outputs().get(n + q), (int) Math.max(outAxes[q], 0));
        }
        return out;
    }

    static long[] axes(NodeView node, String name, int count, long defaultValue) {
        long[] a = node.intsAttr(name, null);
        if (a == null) {
            a = new long[count];
            java.util.Arrays.fill(a, defaultValue);
        } else if (a.length != count) {
            throw new InvalidModelException("Scan attribute '" + name + "' has " + a.length + " values, expected "
                    + count);
        }
        return a;
    }

    static boolean[] directions(NodeView node, String name, int count) {
        long[] d = axes(node, name, count, 0);
        boolean[] reverse = new boolean[count];
        for (int i = 0; i < count; i++) {
            if (d[i] != 0 && d[i] != 1) {
                throw new InvalidModelException("Scan attribute '" + name + "' value " + d[i]
                        + " is not 0 (forward) or 1 (reverse)");
            }
            reverse[i] = d[i] == 1;
        }
        return reverse;
    }
}
