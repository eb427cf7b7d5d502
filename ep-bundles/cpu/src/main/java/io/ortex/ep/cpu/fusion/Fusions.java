package io.ortex.ep.cpu.fusion;

import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Finds the CPU EP's fusions in a graph: at each node, in graph order, the fusions are tried in priority order
 * (attention, dynamically quantized products, the QDQ pattern around Conv and MatMul, MatMul with bias and activation,
 * LayerNormalization, GELU, Conv and ConvTranspose with the channel-wise nodes after them, HardSwish, a Gather from a
 * table left in its file) and the first that matches without touching a node of an earlier match wins. Stateless.
 */
public final class Fusions {
    /** The name of the whole family, for {@code optimization.disable_specified_optimizers}. */
    public static final String OPTIMIZER_NAME = "CpuFusions";

    private static final List<Function<NodeView, FusionMatch>> MATCHERS = List.of(
            AttentionFusion::match,
            DynamicQuantizeMatMulFusion::match,
            QdqFusion::match,
            MatMulBiasFusion::match,
            LayerNormFusion::match,
            GeluFusion::match,
            ConvFusion::match,
            ConvTransposeFusion::match,
            HardSwishFusion::match,
            MappedGatherFusion::match);

    private Fusions() {
    }

    /**
     * Finds the fusions of a graph.
     *
     * @param graph the graph
     * @return the matches, no two sharing a node
     */
    public static List<FusionMatch> find(GraphView graph) {
        Set<NodeView> taken = Collections.newSetFromMap(new IdentityHashMap<>());
        List<FusionMatch> out = new ArrayList<>();
        for (NodeView n : graph.nodes()) {
            if (taken.contains(n)) {
                continue;
            }
            for (Function<NodeView, FusionMatch> matcher : MATCHERS) {
                FusionMatch m = matcher.apply(n);
                if (m != null && m.nodes().stream().noneMatch(taken::contains)) {
                    taken.addAll(m.nodes());
                    out.add(m);
                    break;
                }
            }
        }
        return out;
    }
}
