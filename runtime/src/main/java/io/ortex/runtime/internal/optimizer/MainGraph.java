package io.ortex.runtime.internal.optimizer;

import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import io.ortex.runtime.internal.graph.DependencyOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The main graph of a model while the optimizer rewrites it: its nodes in topological order (removed ones become
 * {@code null}), its initializers by name, and the renames that redirect the readers of a removed node's output to
 * the value that replaces it. Every pass runs in time linear in the graph's size: renames are resolved through a map,
 * never by scanning the nodes. Names read inside subgraphs are never renamed (the subgraphs are not rewritten), so a
 * node whose output a subgraph reads is kept.
 */
final class MainGraph {
    private final GraphProto.Builder graph;
    private final List<NodeProto> nodes;
    private final Map<String, TensorProto> initializers = new LinkedHashMap<>();
    private final Set<String> graphInputs = new HashSet<>();
    private final Set<String> graphOutputs = new HashSet<>();
    private final Set<String> subgraphReads = new HashSet<>();
    private final Set<String> pinned = new HashSet<>();
    private final Map<String, String> renames = new HashMap<>();

    MainGraph(GraphProto proto) {
        this.graph = proto.toBuilder();
        this.nodes = topologicalOrder(proto.getNodeList());
        proto.getInitializerList().forEach(t -> initializers.put(t.getName(), t));
        proto.getInputList().forEach(v -> graphInputs.add(v.getName()));
        proto.getOutputList().forEach(v -> graphOutputs.add(v.getName()));
        for (NodeProto n : nodes) {
            for (AttributeProto a : n.getAttributeList()) {
                subgraphs(a).forEach(g -> collectReads(g, subgraphReads));
            }
            if (n.getOpType().equals("EPContext")) {
                // an EP's compiled payload may refer to the values by name: they keep theirs
                pinned.addAll(n.getInputList());
                pinned.addAll(n.getOutputList());
            }
        }
    }

    /** The nodes in order; removed ones are {@code null}. */
    List<NodeProto> nodes() {
        return nodes;
    }

    /** Replaces node {@code i}, or removes it with {@code null}. */
    void set(int i, NodeProto node) {
        nodes.set(i, node);
    }

    Map<String, TensorProto> initializers() {
        return initializers;
    }

    /** Whether a value is an initializer that no caller can override (not also a graph input). */
    boolean isConstant(String name) {
        return initializers.containsKey(name) && !graphInputs.contains(name);
    }

    boolean isGraphOutput(String name) {
        return graphOutputs.contains(name);
    }

    boolean isGraphInput(String name) {
        return graphInputs.contains(name);
    }

    /**
     * Whether a value's name must stay as it is: it is read inside a subgraph (which the optimizer does not rewrite),
     * or read or written by an EPContext node (whose payload may name it).
     */
    boolean isPinned(String name) {
        return subgraphReads.contains(name) || pinned.contains(name);
    }

    /**
     * Makes the readers of {@code from} read {@code to} instead.
     *
     * @param from a value no longer produced
     * @param to the value that replaces it
     */
    void rename(String from, String to) {
        renames.put(from, to);
    }

    /** Follows renames to the value a name stands for now, compressing the path. */
    String resolve(String name) {
        String to = renames.get(name);
        if (to == null) {
            return name;
        }
        String end = resolve(to);
        if (!end.equals(to)) {
            renames.put(name, end);
        }
        return end;
    }

    /** A node with its inputs resolved through the renames. */
    NodeProto resolved(NodeProto n) {
        NodeProto.Builder b = null;
        for (int k = 0; k < n.getInputCount(); k++) {
            String in = n.getInput(k);
            String r = in.isEmpty() ? in : resolve(in);
            if (!r.equals(in)) {
                if (b == null) {
                    b = n.toBuilder();
                }
                b.setInput(k, r);
            }
        }
        return b == null ? n : b.build();
    }

    /** Applies the renames to every remaining node. */
    void applyRenames() {
        if (renames.isEmpty()) {
            return;
        }
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            if (n != null) {
                nodes.set(i, resolved(n));
            }
        }
    }

    /** Builds the graph: remaining nodes, initializers, the original inputs, outputs and value infos. */
    GraphProto build() {
        applyRenames();
        List<NodeProto> kept = new ArrayList<>();
        for (NodeProto n : nodes) {
            if (n != null) {
                kept.add(n);
            }
        }
        return graph.clearNode().addAllNode(kept).clearInitializer().addAllInitializer(initializers.values())
                .build();
    }

    /** Kahn's algorithm, keeping the model's order wherever the dependencies allow; nodes in a cycle keep theirs. */
    private static List<NodeProto> topologicalOrder(List<NodeProto> in) {
        List<Set<String>> reads = new ArrayList<>(in.size());
        for (NodeProto n : in) {
            Set<String> r = new HashSet<>(n.getInputList());
            for (AttributeProto a : n.getAttributeList()) {
                subgraphs(a).forEach(g -> collectReads(g, r));
            }
            reads.add(r);
        }
        List<Integer> order = DependencyOrder.of(in.stream().map(NodeProto::getOutputList).toList(), reads,
                Comparator.naturalOrder());
        List<NodeProto> out = new ArrayList<>(in.size());
        boolean[] done = new boolean[in.size()];
        for (int i : order) {
            done[i] = true;
            out.add(in.get(i));
        }
        for (int i = 0; i < in.size(); i++) {
            if (!done[i]) {
                out.add(in.get(i));
            }
        }
        return out;
    }

    /** Collects every name read anywhere inside a subgraph. */
    static void collectReads(GraphProto g, Set<String> out) {
        ArrayDeque<GraphProto> todo = new ArrayDeque<>();
        todo.add(g);
        while (!todo.isEmpty()) {
            GraphProto sub = todo.poll();
            for (NodeProto n : sub.getNodeList()) {
                out.addAll(n.getInputList());
                for (AttributeProto a : n.getAttributeList()) {
                    todo.addAll(subgraphs(a));
                }
            }
            for (ValueInfoProto v : sub.getOutputList()) {
                out.add(v.getName());
            }
        }
    }

    static List<GraphProto> subgraphs(AttributeProto a) {
        List<GraphProto> out = new ArrayList<>(a.getGraphsList());
        if (a.hasG()) {
            out.add(a.getG());
        }
        return out;
    }

    static boolean hasSubgraphs(NodeProto n) {
        for (AttributeProto a : n.getAttributeList()) {
            if (a.hasG() || a.getGraphsCount() > 0) {
                return true;
            }
        }
        return false;
    }

    static boolean isDefaultDomain(NodeProto n) {
        return n.getDomain().isEmpty() || n.getDomain().equals("ai.onnx");
    }
}
