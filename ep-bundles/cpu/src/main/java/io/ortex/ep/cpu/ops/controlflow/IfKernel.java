package io.ortex.ep.cpu.ops.controlflow;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import java.util.Map;

/**
 * If: runs {@code then_branch} or {@code else_branch} on the outer-scope values, as the single-element boolean
 * input {@code cond} says, and returns that branch's outputs in order.
 */
final class IfKernel {
    private IfKernel() {
    }

    static CpuKernel create(NodeView node) {
        GraphView thenBranch = SubgraphSupport.subgraph(node, "then_branch");
        GraphView elseBranch = SubgraphSupport.subgraph(node, "else_branch");
        int outputs = node.outputs().size();
        if (thenBranch.outputs().size() != outputs || elseBranch.outputs().size() != outputs) {
            throw new InvalidModelException("If has " + outputs + " outputs but then_branch has "
                    + thenBranch.outputs().size() + " and else_branch " + elseBranch.outputs().size());
        }
        SubgraphSupport support = SubgraphSupport.of(node);
        return (in, ctx) -> {
            if (in[0] == null) {
                throw new InvalidArgumentException("If input 'cond' is missing");
            }
            GraphView branch = SubgraphSupport.condition(in[0], "If input 'cond'") ? thenBranch : elseBranch;
            Map<String, Tensor> result = ctx.runSubgraph(branch, support.outerValues(in));
            Tensor[] out = new Tensor[outputs];
            for (int i = 0; i < outputs; i++) {
                out[i] = result.get(branch.outputs().get(i).name());
            }
            return out;
        };
    }
}
