package io.ortex.runtime.internal.optimizer;

import io.ortex.api.GraphOptimizationLevel;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Dead node elimination, and the entry point that optimizes a model without constant folding (for tools that have
 * no EP at hand). A thin layer over {@link GraphOptimizer}. Stateless.
 */
public final class BasicGraphOptimizer {
    private BasicGraphOptimizer() {
    }

    /**
     * Optimizes a model at a level, without constant folding.
     *
     * @param model the model
     * @param level the level
     * @return the optimized model, or {@code model} itself at {@link GraphOptimizationLevel#DISABLE_ALL}
     */
    public static ModelProto optimize(ModelProto model, GraphOptimizationLevel level) {
        return GraphOptimizer.optimize(model, level, java.util.Set.of(), null);
    }

    /**
     * Removes the nodes none of whose outputs is a graph output or read by a remaining node, then the initializers
     * and value infos of names nothing uses.
     */
    static void removeDeadNodes(GraphProto.Builder graph) {
        List<NodeProto> nodes = graph.getNodeList();
        Set<String> live = new HashSet<>(names(graph.getOutputList()));
        boolean[] keep = new boolean[nodes.size()];
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = nodes.size() - 1; i >= 0; i--) {
                if (keep[i]) {
                    continue;
                }
                NodeProto n = nodes.get(i);
                if (n.getOutputList().stream().anyMatch(live::contains)) {
                    keep[i] = true;
                    changed = true;
                    collectReads(n, live);
                }
            }
        }
        List<NodeProto> kept = new ArrayList<>();
        Set<String> present = new HashSet<>(live);
        present.addAll(names(graph.getInputList()));
        for (int i = 0; i < nodes.size(); i++) {
            if (keep[i]) {
                kept.add(nodes.get(i));
                present.addAll(nodes.get(i).getOutputList());
            }
        }
        Set<String> inputs = names(graph.getInputList());
        List<TensorProto> initializers = new ArrayList<>();
        for (TensorProto t : graph.getInitializerList()) {
            if (live.contains(t.getName()) || inputs.contains(t.getName())) {
                initializers.add(t);
            }
        }
        List<ValueInfoProto> infos = new ArrayList<>();
        for (ValueInfoProto v : graph.getValueInfoList()) {
            if (present.contains(v.getName())) {
                infos.add(v);
            }
        }
        graph.clearNode().addAllNode(kept).clearInitializer().addAllInitializer(initializers).clearValueInfo()
                .addAllValueInfo(infos);
    }

    /** Collects the names a node reads, including every name read anywhere inside its subgraphs. */
    private static void collectReads(NodeProto n, Set<String> out) {
        out.addAll(n.getInputList());
        for (AttributeProto a : n.getAttributeList()) {
            subgraphs(a).forEach(g -> collectReads(g, out));
        }
    }

    private static void collectReads(GraphProto g, Set<String> out) {
        g.getNodeList().forEach(n -> collectReads(n, out));
        g.getOutputList().forEach(v -> out.add(v.getName()));
    }

    private static List<GraphProto> subgraphs(AttributeProto a) {
        List<GraphProto> out = new ArrayList<>(a.getGraphsList());
        if (a.hasG()) {
            out.add(a.getG());
        }
        return out;
    }

    private static Set<String> names(List<ValueInfoProto> values) {
        Set<String> out = new HashSet<>();
        values.forEach(v -> out.add(v.getName()));
        return out;
    }
}
