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
 * The {@link GraphOptimizationLevel#BASIC} optimizer (also used for the higher levels, which add nothing yet): on
 * the main graph it removes {@code Identity} nodes of the default domain, then every node that writes neither a
 * graph output nor a value some remaining node reads, with the initializers and value infos nothing refers to any
 * more. An Identity is removed by pointing its readers at its input; when it writes a graph output, the node that
 * produces its input is made to write that output instead, unless the input is itself a graph input, initializer
 * or graph output, or is read inside a subgraph, where the Identity is kept. Names read inside subgraphs are never
 * renamed. Stateless.
 */
public final class BasicGraphOptimizer {
    private BasicGraphOptimizer() {
    }

    /**
     * Optimizes a model at a level.
     *
     * @param model the model
     * @param level the level
     * @return the optimized model, or {@code model} itself at {@link GraphOptimizationLevel#DISABLE_ALL}
     */
    public static ModelProto optimize(ModelProto model, GraphOptimizationLevel level) {
        if (level == GraphOptimizationLevel.DISABLE_ALL) {
            return model;
        }
        GraphProto.Builder graph = model.getGraph().toBuilder();
        removeIdentities(graph);
        removeDeadNodes(graph);
        return model.toBuilder().setGraph(graph).build();
    }

    /** Removes the Identity nodes that can go, one at a time, so that chains collapse. */
    static void removeIdentities(GraphProto.Builder graph) {
        Set<String> outputs = names(graph.getOutputList());
        Set<String> fixed = new HashSet<>(names(graph.getInputList()));
        graph.getInitializerList().forEach(t -> fixed.add(t.getName()));
        List<NodeProto> nodes = new ArrayList<>(graph.getNodeList());
        Set<String> subgraphReads = new HashSet<>();
        for (NodeProto n : nodes) {
            for (AttributeProto a : n.getAttributeList()) {
                subgraphs(a).forEach(g -> collectReads(g, subgraphReads));
            }
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = 0; i < nodes.size(); i++) {
                NodeProto n = nodes.get(i);
                if (!isIdentity(n)) {
                    continue;
                }
                String in = n.getInput(0);
                String out = n.getOutput(0);
                if (subgraphReads.contains(out) || subgraphReads.contains(in)) {
                    continue;
                }
                if (!outputs.contains(out)) {
                    nodes.remove(i);
                    rename(nodes, out, in, false);
                    changed = true;
                    break;
                }
                if (!fixed.contains(in) && !outputs.contains(in) && producer(nodes, in) >= 0) {
                    nodes.remove(i);
                    rename(nodes, in, out, true);
                    changed = true;
                    break;
                }
            }
        }
        graph.clearNode().addAllNode(nodes);
    }

    private static boolean isIdentity(NodeProto n) {
        return n.getOpType().equals("Identity") && (n.getDomain().isEmpty() || n.getDomain().equals("ai.onnx"))
                && n.getInputCount() == 1 && n.getOutputCount() == 1 && !n.getInput(0).isEmpty()
                && !n.getOutput(0).isEmpty();
    }

    private static int producer(List<NodeProto> nodes, String value) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).getOutputList().contains(value)) {
                return i;
            }
        }
        return -1;
    }

    /** Replaces a value name in the main graph's node inputs, and in node outputs too when asked. */
    private static void rename(List<NodeProto> nodes, String from, String to, boolean outputsToo) {
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            NodeProto.Builder b = null;
            for (int k = 0; k < n.getInputCount(); k++) {
                if (n.getInput(k).equals(from)) {
                    b = b == null ? n.toBuilder() : b;
                    b.setInput(k, to);
                }
            }
            for (int k = 0; outputsToo && k < n.getOutputCount(); k++) {
                if (n.getOutput(k).equals(from)) {
                    b = b == null ? n.toBuilder() : b;
                    b.setOutput(k, to);
                }
            }
            if (b != null) {
                nodes.set(i, b.build());
            }
        }
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
