package io.ortex.ep.cpu.ops.controlflow;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Loop: runs {@code body} while the trip count {@code M} (when given) is not reached and the condition (when given)
 * holds. The body gets the iteration number, the condition and the N loop-carried values, and returns the next
 * condition, the next carried values (whose shapes may change between iterations) and K scan outputs, which are
 * stacked along a new first axis (every iteration must give them the same shape). When {@code cond} is omitted the
 * body's condition output is ignored, as ONNX specifies.
 */
final class LoopKernel {
    private LoopKernel() {
    }

    static CpuKernel create(NodeView node) {
        GraphView body = SubgraphSupport.subgraph(node, "body");
        int carried = node.inputs().size() - 2;
        if (carried < 0) {
            throw new InvalidModelException("Loop needs the inputs M and cond (either may be empty)");
        }
        String[] bodyInputs = SubgraphSupport.inputNames(body);
        if (bodyInputs.length != carried + 2) {
            throw new InvalidModelException("Loop body has " + bodyInputs.length + " inputs, expected " + (carried + 2)
                    + " (iteration number, condition and " + carried + " loop-carried values)");
        }
        int bodyOutputs = body.outputs().size();
        int scans = bodyOutputs - 1 - carried;
        if (scans < 0) {
            throw new InvalidModelException("Loop body has " + bodyOutputs + " outputs, expected at least "
                    + (1 + carried) + " (condition and the loop-carried values)");
        }
        String[] outNames = new String[bodyOutputs];
        for (int i = 0; i < bodyOutputs; i++) {
            outNames[i] = body.outputs().get(i).name();
        }
        SubgraphSupport support = SubgraphSupport.of(node);
        int nodeOutputs = node.outputs().size();
        return (in, ctx) -> {
            long maxTrips = in[0] == null ? Long.MAX_VALUE : tripCount(in[0]);
            boolean useCond = in[1] != null;
            boolean cond = !useCond || SubgraphSupport.condition(in[1], "Loop input 'cond'");
            Tensor[] state = new Tensor[carried];
            for (int i = 0; i < carried; i++) {
                state[i] = in[2 + i];
                if (state[i] == null) {
                    throw new InvalidArgumentException("Loop loop-carried input " + i + " is missing");
                }
            }
            List<List<Tensor>> scanned = new ArrayList<>(scans);
            for (int k = 0; k < scans; k++) {
                scanned.add(new ArrayList<>());
            }
            Tensor condTensor = Tensor.ofBooleans(new boolean[] {cond});
            for (long iter = 0; iter < maxTrips && cond; iter++) {
                if (ctx.isCancelled()) {
                    throw new OrtexException(ErrorCode.FAIL, "the run was cancelled");
                }
                Map<String, Tensor> values = support.outerValues(in);
                values.put(bodyInputs[0], Tensor.ofLongs(new long[] {iter}));
                values.put(bodyInputs[1], condTensor);
                for (int i = 0; i < carried; i++) {
                    values.put(bodyInputs[2 + i], state[i]);
                }
                Map<String, Tensor> result = ctx.runSubgraph(body, values);
                Tensor nextCond = result.get(outNames[0]);
                if (useCond) {
                    cond = SubgraphSupport.condition(nextCond, "Loop body output 'cond'");
                    condTensor = Tensor.ofBooleans(new boolean[] {cond});
                }
                for (int i = 0; i < carried; i++) {
                    state[i] = result.get(outNames[1 + i]);
                }
                for (int k = 0; k < scans; k++) {
                    Tensor s = result.get(outNames[1 + carried + k]);
                    List<Tensor> list = scanned.get(k);
                    if (!list.isEmpty()) {
                        SubgraphSupport.checkSameShape(list.get(0).shape(), s, "Loop scan output " + k);
                    }
                    list.add(s);
                }
            }
            Tensor[] out = new Tensor[nodeOutputs];
            for (int i = 0; i < carried && i < nodeOutputs; i++) {
                out[i] = state[i];
            }
            for (int k = 0; k < scans && carried + k < nodeOutputs; k++) {
                List<Tensor> list = scanned.get(k);
                if (list.isEmpty()) {
                    out[carried + k] = SubgraphSupport.emptyStack(body.outputs().get(1 + carried + k), 0);
                    continue;
                }
                Tensor first = list.get(0);
                Tensor stack = SubgraphSupport.stacked(first.type(), first.shape(), 0, list.size());
                for (int t = 0; t < list.size(); t++) {
                    SubgraphSupport.place(stack, 0, t, list.get(t));
                }
                out[carried + k] = stack;
            }
            return out;
        };
    }

    private static long tripCount(Tensor m) {
        if (m.size() != 1) {
            throw new InvalidArgumentException("Loop input 'M' must have exactly one element, got shape ["
                    + Tensor.shapeString(m.shape()) + "]");
        }
        return m.getLong(0);
    }
}
