package io.ortex.runtime.internal;

import io.ortex.api.Names;
import io.ortex.api.NotImplementedException;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.KernelDef;
import io.ortex.api.spi.KernelRegistry;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import org.slf4j.event.Level;

/**
 * Decides which EP runs each node, as ONNX Runtime's partitioner does: EPs in priority order claim nodes through
 * {@link ExecutionProvider#getCapability}; a claim touching a node an earlier EP owns is dropped; a fused group
 * through which a path leaves and re-enters, or groups that would feed each other once fused (a cycle either way),
 * void that EP's whole answer; an EP that throws claims nothing; a node nobody claims fails the session naming it.
 */
final class Partitioner {
    /** A group of nodes assigned to one EP, to be compiled into one kernel. */
    record Group(ExecutionProvider ep, List<NodeView> nodes, FusionOptions options) {
    }

    private Partitioner() {
    }

    /**
     * Assigns every node of a graph to an EP.
     *
     * @param graph the graph
     * @param eps the session's EPs in priority order, the CPU EP last
     * @param log told why claims were refused: a warning for an EP that failed or claimed what it cannot have, a
     *     debug message for a claim of nodes an earlier EP already took (the normal case for the fallback EP)
     * @return the groups, in assignment order
     */

    static List<Group> partition(Graph graph, List<ExecutionProvider> eps, BiConsumer<Level, String> log) {
        return partition(graph, eps, ResourceBudgets.none(), log);
    }

    /**
     * Assigns every node of a graph to an EP, each EP's claims cut to its resource budget.
     *
     * @param graph the graph
     * @param eps the session's EPs in priority order, the CPU EP last
     * @param budgets the EPs' budgets, shared by the session's graphs
     * @param log told why claims were refused or cut
     * @return the groups, in assignment order
     */
    static List<Group> partition(Graph graph, List<ExecutionProvider> eps, ResourceBudgets budgets,
                                 BiConsumer<Level, String> log) {
        Map<NodeView, ExecutionProvider> owner = new HashMap<>();
        List<Group> groups = claim(graph, eps, budgets, log, owner);
        checkAllClaimed(graph, eps, budgets, owner);
        return groups;
    }

    /**
     * Asks the EPs for their claims as {@link #partition} does, but leaves nodes nobody claims unassigned rather than
     * failing: what the layout conversion needs to know which nodes an EP would take.
     *
     * @param graph the graph
     * @param eps the session's EPs in priority order
     * @param budgets the EPs' budgets
     * @param log told why claims were refused or cut
     * @return the groups, in assignment order
     */
    static List<Group> claims(Graph graph, List<ExecutionProvider> eps, ResourceBudgets budgets,
                              BiConsumer<Level, String> log) {
        return claim(graph, eps, budgets, log, new HashMap<>());
    }

    private static List<Group> claim(Graph graph, List<ExecutionProvider> eps, ResourceBudgets budgets,
                                     BiConsumer<Level, String> log, Map<NodeView, ExecutionProvider> owner) {
        List<Group> groups = new ArrayList<>();
        Map<NodeView, Integer> positions = GroupGraphView.positions(graph);
        for (ExecutionProvider ep : eps) {
            Collector claims = new Collector(graph, owner, ep);
            try {
                ep.getCapability(graph, claims);
            } catch (RuntimeException e) {
                log.accept(Level.WARN, "EP " + ep.name() + " failed in getCapability and claims no node: " + e);
                continue;
            }
            String refusal = claims.refusal != null ? claims.refusal : findCycle(claims.groups, positions);
            if (refusal != null) {
                log.accept(Level.WARN, "EP " + ep.name() + " claims no node: " + refusal);
                continue;
            }
            List<Group> mine = new ArrayList<>();
            Set<NodeView> taking = new HashSet<>();
            for (Group g : claims.groups) {
                if (g.nodes().stream().anyMatch(owner::containsKey)) {
                    log.accept(Level.DEBUG, "EP " + ep.name() + " claim of " + names(g.nodes())
                            + " dropped: a node belongs to an earlier EP");
                    continue;
                }
                List<NodeView> fresh = g.nodes().stream().filter(taking::add).collect(Collectors.toList());
                if (!fresh.isEmpty()) {
                    mine.add(new Group(ep, fresh, g.options()));
                }
            }
            mine = budgets.fit(ep, mine, positions, log);
            taking.clear();
            mine.forEach(g -> taking.addAll(g.nodes()));
            List<Group> all = new ArrayList<>(groups);
            all.addAll(mine);
            String cycle = findPartitionCycle(graph, all);
            if (cycle != null) {
                log.accept(Level.WARN, "EP " + ep.name() + " claims no node: " + cycle);
                continue;
            }
            taking.forEach(n -> owner.put(n, ep));
            groups.addAll(mine);
        }
        return groups;
    }

    private static void checkAllClaimed(Graph graph, List<ExecutionProvider> eps, ResourceBudgets budgets,
                                        Map<NodeView, ExecutionProvider> owner) {
        for (NodeView n : graph.nodes()) {
            if (!owner.containsKey(n) && EpContextNode.isEpContext(n)) {
                throw new NotImplementedException("EPContext node " + Names.quote(n.displayName()) + " (source '"
                        + n.stringAttr(EpContextNode.SOURCE, "") + "') is not claimed by any EP of this session ("
                        + eps.stream().map(ExecutionProvider::name).collect(Collectors.joining(", "))
                        + "): the EP that compiled it is not selected or not registered");
            }
            if (!owner.containsKey(n)) {
                throw new NotImplementedException("node " + Names.quote(n.displayName()) + " (op " + opName(n)
                        + ", opset "
                        + n.opsetVersion() + ") is not supported by any EP of this session ("
                        + eps.stream().map(ExecutionProvider::name).collect(Collectors.joining(", ")) + ")"
                        + (budgets.exhausted().isEmpty() ? "" : "; the resource budget of "
                        + String.join(", ", budgets.exhausted()) + " ran out before it")
                        + (n.domain().equals(DataLayout.NHWC_DOMAIN) ? "; the runtime converted it to NHWC for an "
                        + "EP that prefers that layout, and that EP must claim it again" : ""));
            }
        }
    }

    static String opName(NodeView n) {
        return n.domain().isEmpty() ? n.opType() : n.domain() + "::" + n.opType();
    }

    private static String names(List<NodeView> nodes) {
        return nodes.stream().map(NodeView::displayName).limit(5).collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * Refuses a fused group when a path from one of its nodes leaves the group and comes back into it. Only nodes
     * placed before the group's last node in topological order can lead back into it, so the search stops there and
     * costs the group's span, not the whole graph.
     */
    private static String findCycle(List<Group> groups, Map<NodeView, Integer> positions) {
        for (Group g : groups) {
            if (g.nodes().size() < 2) {
                continue;
            }
            Set<NodeView> members = new HashSet<>(g.nodes());
            int last = 0;
            for (NodeView n : g.nodes()) {
                last = Math.max(last, positions.get(n));
            }
            Deque<NodeView> frontier = new ArrayDeque<>();
            Set<NodeView> seen = new HashSet<>();
            for (NodeView n : g.nodes()) {
                for (NodeView c : consumers(n)) {
                    if (!members.contains(c) && positions.get(c) < last && seen.add(c)) {
                        frontier.add(c);
                    }
                }
            }
            while (!frontier.isEmpty()) {
                NodeView outside = frontier.poll();
                for (NodeView c : consumers(outside)) {
                    if (members.contains(c)) {
                        return "fusing " + names(g.nodes()) + " would create a cycle through node '"
                                + outside.displayName() + "'";
                    }
                    if (positions.get(c) < last && seen.add(c)) {
                        frontier.add(c);
                    }
                }
            }
        }
        return null;
    }

    /**
     * Refuses a set of groups that, once each is fused into one node, depend on each other in a cycle: two groups
     * can each be free of outside paths and still feed each other (a node of A feeds B while a node of B feeds A).
     * Nodes outside every group count as partitions of one node.
     */
    private static String findPartitionCycle(Graph graph, List<Group> groups) {
        List<NodeView> all = graph.nodes();
        Map<NodeView, Integer> unit = new IdentityHashMap<>(all.size() * 2);
        for (int g = 0; g < groups.size(); g++) {
            for (NodeView n : groups.get(g).nodes()) {
                unit.put(n, g);
            }
        }
        int next = groups.size();
        for (NodeView n : all) {
            if (!unit.containsKey(n)) {
                unit.put(n, next++);
            }
        }
        // edges between units, repeats allowed: each is counted once and released once
        int[] edgeFrom = new int[16];
        int[] edgeTo = new int[16];
        int edges = 0;
        for (NodeView n : all) {
            int to = unit.get(n);
            for (int k = 0; k < 2; k++) {
                for (ValueView v : k == 0 ? n.inputs() : n.implicitInputs()) {
                    Integer from = v == null ? null : v.producer().map(unit::get).orElse(null);
                    if (from != null && from != to) {
                        if (edges == edgeFrom.length) {
                            edgeFrom = Arrays.copyOf(edgeFrom, edges * 2);
                            edgeTo = Arrays.copyOf(edgeTo, edges * 2);
                        }
                        edgeFrom[edges] = from;
                        edgeTo[edges++] = to;
                    }
                }
            }
        }
        // adjacency in compressed rows: the edges leaving unit u are targets[start[u] .. start[u + 1])
        int[] start = new int[next + 1];
        for (int e = 0; e < edges; e++) {
            start[edgeFrom[e] + 1]++;
        }
        for (int u = 0; u < next; u++) {
            start[u + 1] += start[u];
        }
        int[] targets = new int[edges];
        int[] fill = Arrays.copyOf(start, next);
        int[] pending = new int[next];
        for (int e = 0; e < edges; e++) {
            targets[fill[edgeFrom[e]]++] = edgeTo[e];
            pending[edgeTo[e]]++;
        }
        int[] ready = new int[next];
        int head = 0;
        int tail = 0;
        for (int i = 0; i < next; i++) {
            if (pending[i] == 0) {
                ready[tail++] = i;
            }
        }
        while (head < tail) {
            int u = ready[head++];
            for (int e = start[u]; e < start[u + 1]; e++) {
                if (--pending[targets[e]] == 0) {
                    ready[tail++] = targets[e];
                }
            }
        }
        if (tail == next) {
            return null;
        }
        List<String> stuck = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            if (pending[g] > 0) {
                stuck.add(groups.get(g).ep().name() + " " + names(groups.get(g).nodes()));
            }
        }
        return "its groups would depend on each other in a cycle once fused: " + String.join(", ", stuck);
    }

    private static List<NodeView> consumers(NodeView n) {
        List<NodeView> out = new ArrayList<>();
        for (ValueView v : n.outputs()) {
            if (v != null) {
                out.addAll(v.consumers());
            }
        }
        return out;
    }

    /** Collects one EP's claims for one graph, checking each as it comes. */
    private static final class Collector implements GraphSupport {
        private final Set<NodeView> graphNodes;
        private final Map<NodeView, ExecutionProvider> owner;
        private final ExecutionProvider ep;
        private final List<Group> groups = new ArrayList<>();
        private String refusal;

        Collector(Graph graph, Map<NodeView, ExecutionProvider> owner, ExecutionProvider ep) {
            this.graphNodes = new HashSet<>(graph.nodes());
            this.owner = owner;
            this.ep = ep;
        }

        @Override
        public Optional<KernelDef> lookUpKernel(NodeView node) {
            return KernelMatcher.find(ep.kernelRegistry().orElse(null), node).map(KernelRegistry.Entry::definition);
        }

        @Override
        public Optional<String> assignedEp(NodeView node) {
            return Optional.ofNullable(owner.get(node)).map(ExecutionProvider::name);
        }

        @Override
        public void addNodesToFuse(List<NodeView> nodes, FusionOptions options) {
            if (nodes == null || nodes.isEmpty()) {
                throw new IllegalArgumentException("addNodesToFuse needs at least one node");
            }
            add(List.copyOf(nodes), options == null ? FusionOptions.DEFAULT : options);
        }

        @Override
        public void addSingleNode(NodeView node) {
            if (node == null) {
                throw new IllegalArgumentException("addSingleNode needs a node");
            }
            add(List.of(node), FusionOptions.DEFAULT);
        }

        private void add(List<NodeView> nodes, FusionOptions options) {
            for (NodeView n : nodes) {
                if (!graphNodes.contains(n)) {
                    refusal = "it claimed node " + Names.quote(n.displayName()) + ", which is not in this graph";
                    return;
                }
            }
            groups.add(new Group(null, nodes, options));
        }
    }
}
