package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.LayoutConversion;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.runtime.internal.optimizer.LayoutTransformer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.event.Level;

/**
 * The layout step of session creation, as ONNX Runtime's partitioner runs its layout transformer: when an EP of the
 * session prefers NHWC, the EPs are asked for their capabilities on the main graph, the nodes an NHWC-preferring EP
 * claimed are converted where {@link ExecutionProvider#shouldConvertDataLayout} (or, left to the runtime, the list of
 * layout-sensitive ops) says so ({@link LayoutTransformer}), and the session goes on with the converted model, whose
 * partitioning asks the EPs again. Nested subgraphs (If, Loop and Scan bodies) are converted too, each partitioned on
 * its own, as ONNX Runtime's partitioner transforms each graph it partitions. A session none of whose EPs prefers
 * NHWC skips all of it. Stateless.
 */
final class SessionLayout {
    /** Ops whose weight (input 1) has the rank of the data, which tells the data's rank when no shape is declared. */
    private static final Set<String> WEIGHTED = Set.of("Conv", "ConvTranspose");

    private SessionLayout() {
    }

    /**
     * Converts the nodes the session's NHWC-preferring EPs claim and want converted.
     *
     * @param model the model after graph optimization
     * @param eps the session's EPs in priority order
     * @param config the session configuration (for the EPs' resource budgets)
     * @param log told what was converted, and why the trial claims were refused
     * @return the converted model, or {@code model} when nothing was converted
     */
    static OnnxModel apply(OnnxModel model, List<ExecutionProvider> eps, Map<String, String> config,
                           BiConsumer<Level, String> log) {
        if (eps.stream().noneMatch(ep -> ep.preferredDataLayout() == DataLayout.NHWC)) {
            return model;
        }
        Selection selection = new Selection(eps, ResourceBudgets.of(eps, config), log);
        selection.choose(model.graph(), Map.of());
        if (selection.convert.isEmpty()) {
            return model;
        }
        ModelProto converted = LayoutTransformer.toChannelsLast(model.proto(), selection.convert);
        if (converted == model.proto()) {
            return model;
        }
        selection.perEp.forEach((ep, count) -> log.accept(Level.DEBUG, count + " nodes converted to NHWC for " + ep));
        return ModelReader.rewrite(model, converted);
    }

    /** The nodes one session converts: its EPs and their budgets, and what was chosen so far. */
    private static final class Selection {
        private final List<ExecutionProvider> eps;
        private final ResourceBudgets budgets;
        private final BiConsumer<Level, String> log;
        /** The first output of each node to convert, with the rank of its data. */
        final Map<String, Integer> convert = new LinkedHashMap<>();
        /** How many nodes each EP has converted. */
        final Map<String, Integer> perEp = new LinkedHashMap<>();

        Selection(List<ExecutionProvider> eps, ResourceBudgets budgets, BiConsumer<Level, String> log) {
            this.eps = eps;
            this.budgets = budgets;
            this.log = log;
        }

        /**
         * Chooses the nodes of one graph to convert, then those of its nested subgraphs, each graph partitioned on
         * its own as the session's partitioning does.
         *
         * @param graph the graph
         * @param outerRanks the ranks known in the enclosing graphs, for the values a subgraph reads from them
         */
        void choose(Graph graph, Map<String, Integer> outerRanks) {
            // the trial: its refusals are said again, at their own level, when the converted graph is partitioned
            List<Partitioner.Group> groups = Partitioner.claims(graph, eps, budgets,
                    (level, message) -> log.accept(Level.DEBUG, "before the layout conversion: " + message));
            Map<String, Integer> ranks = ranks(graph, outerRanks);
            for (Partitioner.Group group : groups) {
                ExecutionProvider ep = group.ep();
                if (ep.preferredDataLayout() != DataLayout.NHWC) {
                    continue;
                }
                for (NodeView node : group.nodes()) {
                    if (!convertible(node)) {
                        continue;
                    }
                    Integer rank = ranks.get(node.inputs().get(0).name());
                    if (rank == null || rank < 3 || !wantsConversion(ep, node)) {
                        continue;
                    }
                    convert.put(node.outputs().get(0).name(), rank);
                    perEp.merge(ep.name(), 1, Integer::sum);
                }
            }
            for (NodeView node : graph.nodes()) {
                for (GraphView sub : node.subgraphs().values()) {
                    choose((Graph) sub, ranks);
                }
            }
        }
    }

    /** Whether a node has the shape a conversion needs: a data input, one output, no subgraph, not converted yet. */
    private static boolean convertible(NodeView node) {
        return !node.outputs().isEmpty() && node.outputs().get(0) != null && !node.inputs().isEmpty()
                && node.inputs().get(0) != null && node.outputs().stream().skip(1).allMatch(v -> v == null)
                && node.subgraphs().isEmpty() && !node.domain().equals(DataLayout.NHWC_DOMAIN);
    }

    private static boolean wantsConversion(ExecutionProvider ep, NodeView node) {
        LayoutConversion answer;
        try {
            answer = ep.shouldConvertDataLayout(node.domain(), node.opType(), DataLayout.NHWC);
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "EP " + ep.name() + " failed in shouldConvertDataLayout for node "
                    + Names.quote(node.displayName()) + " (op " + Partitioner.opName(node) + "): " + e, e);
        }
        if (answer == null || answer == LayoutConversion.RUNTIME_DECIDES) {
            boolean onnx = node.domain().isEmpty() || node.domain().equals("ai.onnx");
            return onnx && LayoutTransformer.LAYOUT_SENSITIVE_OPS.contains(node.opType());
        }
        return answer == LayoutConversion.CONVERT;
    }

    /**
     * The rank of each value of the main graph where it is known: declared shapes and initializers, then carried in
     * graph order through the ops whose first output has the rank of their first input (the layout-sensitive and
     * element-wise ones), and a Conv's data taken to have its weight's rank.
     */
    static Map<String, Integer> ranks(Graph graph) {
        return ranks(graph, Map.of());
    }

    /**
     * The rank of each value of a graph where it is known, starting from the ranks known in the enclosing graphs.
     *
     * @param graph the graph
     * @param outer the ranks of the values of the enclosing graphs
     * @return the ranks, the outer ones included
     */
    static Map<String, Integer> ranks(Graph graph, Map<String, Integer> outer) {
        Map<String, Integer> ranks = new HashMap<>(outer);
        for (NodeView node : graph.nodes()) {
            for (ValueView v : node.inputs()) {
                if (v != null) {
                    declared(v, ranks);
                }
            }
            List<ValueView> in = node.inputs();
            boolean onnx = node.domain().isEmpty() || node.domain().equals("ai.onnx");
            if (onnx && WEIGHTED.contains(node.opType()) && in.size() > 1 && in.get(0) != null && in.get(1) != null
                    && !ranks.containsKey(in.get(0).name()) && ranks.containsKey(in.get(1).name())) {
                ranks.put(in.get(0).name(), ranks.get(in.get(1).name()));
            }
            if (node.outputs().isEmpty() || node.outputs().get(0) == null) {
                continue;
            }
            ValueView out = node.outputs().get(0);
            declared(out, ranks);
            boolean keepsRank = onnx && (LayoutTransformer.LAYOUT_SENSITIVE_OPS.contains(node.opType())
                    || LayoutTransformer.ELEMENTWISE_OPS.contains(node.opType()));
            if (keepsRank && !ranks.containsKey(out.name()) && !in.isEmpty() && in.get(0) != null
                    && ranks.containsKey(in.get(0).name())) {
                ranks.put(out.name(), ranks.get(in.get(0).name()));
            }
        }
        return ranks;
    }

    private static void declared(ValueView v, Map<String, Integer> ranks) {
        TensorInfo info = v.typeInfo().orElse(null);
        if (info != null && info.hasShape() && !ranks.containsKey(v.name())) {
            ranks.put(v.name(), info.dims().length);
        }
    }
}
