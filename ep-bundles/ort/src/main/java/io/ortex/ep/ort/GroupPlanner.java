package io.ortex.ep.ort;

import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Splits the nodes of a graph that an EP can run into groups to fuse, as ONNX Runtime's partitioning utilities do:
 * a topological walk that takes every ready supported node into the current group before it lets an unsupported
 * node run, and closes the group when only unsupported nodes are ready. Each group is therefore convex (no path
 * leaves it and comes back) and groups only feed later groups, so fusing them never creates a cycle; each group is
 * then split into its connected parts, which keeps both properties. Stateless.
 */
final class GroupPlanner {
    private GroupPlanner() {
    }

    /**
     * Plans the groups.
     *
     * @param nodes the graph's nodes in topological order
     * @param supported which nodes the EP can run
     * @return the groups, each in topological order, in the order the walk closed them
     */
    static List<List<NodeView>> plan(List<NodeView> nodes, Predicate<NodeView> supported) {
        Map<NodeView, List<NodeView>> consumers = new IdentityHashMap<>();
        Map<NodeView, Integer> pending = new IdentityHashMap<>();
        for (NodeView n : nodes) {
            consumers.put(n, new ArrayList<>());
            pending.put(n, 0);
        }
        for (NodeView n : nodes) {
            for (NodeView p : producers(n, consumers)) {
                consumers.get(p).add(n);
                pending.merge(n, 1, Integer::sum);
            }
        }
        Deque<NodeView> readySupported = new ArrayDeque<>();
        Deque<NodeView> readyOther = new ArrayDeque<>();
        for (NodeView n : nodes) {
            if (pending.get(n) == 0) {
                (supported.test(n) ? readySupported : readyOther).add(n);
            }
        }
        List<List<NodeView>> groups = new ArrayList<>();
        List<NodeView> current = new ArrayList<>();
        while (!readySupported.isEmpty() || !readyOther.isEmpty()) {
            while (!readySupported.isEmpty()) {
                NodeView n = readySupported.poll();
                current.add(n);
                release(n, consumers, pending, supported, readySupported, readyOther);
            }
            if (!current.isEmpty()) {
                groups.addAll(connectedParts(current));
                current = new ArrayList<>();
            }
            // let every unsupported node that is ready run, then start the next group
            while (!readyOther.isEmpty()) {
                NodeView n = readyOther.poll();
                release(n, consumers, pending, supported, readySupported, readyOther);
            }
        }
        return groups;
    }

    private static void release(NodeView n, Map<NodeView, List<NodeView>> consumers, Map<NodeView, Integer> pending,
                                Predicate<NodeView> supported, Deque<NodeView> readySupported,
                                Deque<NodeView> readyOther) {
        for (NodeView c : consumers.get(n)) {
            if (pending.merge(c, -1, Integer::sum) == 0) {
                (supported.test(c) ? readySupported : readyOther).add(c);
            }
        }
    }

    /** The distinct nodes of the graph that produce a node's inputs and implicit inputs. */
    static List<NodeView> producers(NodeView n, Map<NodeView, ?> graphNodes) {
        List<NodeView> out = new ArrayList<>();
        for (ValueView v : reads(n)) {
            if (v != null) {
                v.producer().filter(graphNodes::containsKey).filter(p -> !out.contains(p)).ifPresent(out::add);
            }
        }
        return out;
    }

    /** A node's inputs followed by the outer values its subgraphs read. */
    static List<ValueView> reads(NodeView n) {
        if (n.implicitInputs().isEmpty()) {
            return n.inputs();
        }
        List<ValueView> all = new ArrayList<>(n.inputs());
        all.addAll(n.implicitInputs());
        return all;
    }

    /** Splits a group into its weakly connected parts, each in the group's order. */
    static List<List<NodeView>> connectedParts(List<NodeView> group) {
        Map<NodeView, Integer> index = new HashMap<>();
        for (int i = 0; i < group.size(); i++) {
            index.put(group.get(i), i);
        }
        int[] parent = new int[group.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        for (int i = 0; i < group.size(); i++) {
            for (NodeView p : producers(group.get(i), index)) {
                union(parent, i, index.get(p));
            }
        }
        Map<Integer, List<NodeView>> parts = new LinkedHashMap<>();
        for (int i = 0; i < group.size(); i++) {
            parts.computeIfAbsent(find(parent, i), k -> new ArrayList<>()).add(group.get(i));
        }
        return List.copyOf(parts.values());
    }

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    }

    private static void union(int[] parent, int a, int b) {
        int ra = find(parent, a);
        int rb = find(parent, b);
        if (ra != rb) {
            parent[Math.max(ra, rb)] = Math.min(ra, rb);
        }
    }
}
