package io.ortex.ep.example;

import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Splits the supported nodes of a graph into groups that can each be fused into one compiled node.
 *
 * <p>A group may be fused only when it is <em>convex</em>: no path leaves the group and comes back into it, since
 * the fused node would then both feed and consume the nodes on that path, a cycle. The planner walks the nodes in
 * topological order and keeps every group convex at each step:
 * <ul>
 *   <li>for each node it records the groups it depends on, directly or through any path ({@code dependsOn});</li>
 *   <li>a supported node joins the groups that produce its inputs, taken in the order they were created, but only
 *       a set of groups {@code T} for which no edge {@code p -> v} into a member {@code v} of {@code T} (or into the
 *       node itself) comes from a node {@code p} outside {@code T} that depends on {@code T}. Such a {@code p}
 *       would lie on a path between two members. When two producer groups are joined, they merge;</li>
 *   <li>a supported node that joins no group starts one; an unsupported node belongs to none.</li>
 * </ul>
 * Groups are therefore connected, convex and as large as this greedy walk allows; the result depends only on the
 * graph's node order, so it is deterministic. Not thread safe; use one planner per graph.
 */
final class FusionPlanner {
    private final List<NodeView> nodes;
    private final Map<Integer, Integer> positionById = new HashMap<>();
    /** The predecessor positions of each node, from its inputs and implicit inputs. */
    private final int[][] predecessors;
    /** The raw group id of each node, or -1. */
    private final int[] groupOf;
    /** The raw group ids each node depends on through any path. */
    private final BitSet[] dependsOn;
    /** Union-find parent of each raw group id. */
    private final List<Integer> parent = new ArrayList<>();
    /** Per root group: positions of the predecessors of its members (some of them members too). */
    private final Map<Integer, List<Integer>> entries = new HashMap<>();

    private FusionPlanner(GraphView graph) {
        this.nodes = graph.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            positionById.put(nodes.get(i).id(), i);
        }
        this.predecessors = new int[nodes.size()][];
        this.groupOf = new int[nodes.size()];
        this.dependsOn = new BitSet[nodes.size()];
    }

    /**
     * Plans the groups of a graph.
     *
     * @param graph the graph
     * @return the groups, each in topological order, ordered by their first node
     */
    static List<List<NodeView>> plan(GraphView graph) {
        return new FusionPlanner(graph).run();
    }

    private List<List<NodeView>> run() {
        Set<Integer> supported = new HashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            NodeView node = nodes.get(i);
            predecessors[i] = predecessorsOf(node);
            dependsOn[i] = new BitSet();
            groupOf[i] = -1;
            for (int p : predecessors[i]) {
                dependsOn[i].or(dependsOn[p]);
                if (groupOf[p] >= 0) {
                    dependsOn[i].set(groupOf[p]);
                }
            }
            if (NodeSupport.rejection(node, supported).isEmpty()) {
                supported.add(node.id());
                place(i);
            }
        }
        return collect();
    }

    private int[] predecessorsOf(NodeView node) {
        TreeSet<Integer> preds = new TreeSet<>();
        List<ValueView> values = new ArrayList<>(node.inputs());
        values.addAll(node.implicitInputs());
        for (ValueView v : values) {
            if (v != null) {
                v.producer().map(p -> positionById.get(p.id())).ifPresent(preds::add);
            }
        }
        return preds.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Puts a supported node into the largest convex union of its producers' groups, or into a new group. */
    private void place(int node) {
        TreeSet<Integer> candidates = new TreeSet<>();
        for (int p : predecessors[node]) {
            if (groupOf[p] >= 0) {
                candidates.add(find(groupOf[p]));
            }
        }
        TreeSet<Integer> chosen = new TreeSet<>();
        for (int candidate : candidates) {
            TreeSet<Integer> trial = new TreeSet<>(chosen);
            trial.add(candidate);
            if (convex(trial, node)) {
                chosen = trial;
            }
        }
        int root;
        if (chosen.isEmpty()) {
            root = parent.size();
            parent.add(root);
            entries.put(root, new ArrayList<>());
        } else {
            root = chosen.first();
            for (int other : chosen.tailSet(root, false)) {
                parent.set(other, root);
                entries.get(root).addAll(entries.remove(other));
            }
        }
        for (int p : predecessors[node]) {
            entries.get(root).add(p);
        }
        groupOf[node] = root;
    }

    /** Tells whether the groups {@code roots} plus {@code node} would be convex. */
    private boolean convex(Set<Integer> roots, int node) {
        BitSet raw = new BitSet();
        for (int id = 0; id < parent.size(); id++) {
            if (roots.contains(find(id))) {
                raw.set(id);
            }
        }
        for (int root : roots) {
            for (int p : entries.get(root)) {
                if (leadsBackInto(p, roots, raw)) {
                    return false;
                }
            }
        }
        for (int p : predecessors[node]) {
            if (leadsBackInto(p, roots, raw)) {
                return false;
            }
        }
        return true;
    }

    /** True when {@code p} is outside the groups {@code roots} but depends on one of them. */
    private boolean leadsBackInto(int p, Set<Integer> roots, BitSet raw) {
        boolean inside = groupOf[p] >= 0 && roots.contains(find(groupOf[p]));
        return !inside && dependsOn[p].intersects(raw);
    }

    private int find(int id) {
        int root = id;
        while (parent.get(root) != root) {
            root = parent.get(root);
        }
        return root;
    }

    private List<List<NodeView>> collect() {
        Map<Integer, List<NodeView>> byRoot = new LinkedHashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (groupOf[i] >= 0) {
                byRoot.computeIfAbsent(find(groupOf[i]), r -> new ArrayList<>()).add(nodes.get(i));
            }
        }
        return List.copyOf(byRoot.values());
    }
}
