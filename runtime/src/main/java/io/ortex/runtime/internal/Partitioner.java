package io.ortex.runtime.internal;

import io.ortex.api.NotImplementedException;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Decides which EP runs each node, as ONNX Runtime's partitioner does: EPs in priority order claim nodes through
 * {@link ExecutionProvider#getCapability}; a claim touching a node an earlier EP owns is dropped; a fused group
 * through which a path leaves and re-enters (a cycle once fused) voids that EP's whole answer; an EP that throws
 * claims nothing; a node nobody claims fails the session naming it.
 */
final class Partitioner {
    /** A group of nodes assigned to one EP, to be compiled into one kernel. */
    record Group(ExecutionProvider ep, List<NodeView> nodes, FusionOptions options) {
    }

    private Partitioner() {
    }

    static List<Group> partition(Graph graph, List<ExecutionProvider> eps, Consumer<String> log) {
        Map<NodeView, ExecutionProvider> owner = new HashMap<>();
        List<Group> groups = new ArrayList<>();
        for (ExecutionProvider ep : eps) {
            Collector claims = new Collector(graph);
            try {
                ep.getCapability(graph, claims);
            } catch (RuntimeException e) {
                log.accept("EP " + ep.name() + " failed in getCapability and claims no node: " + e);
                continue;
            }
            String refusal = claims.refusal != null ? claims.refusal : findCycle(claims.groups);
            if (refusal != null) {
                log.accept("EP " + ep.name() + " claims no node: " + refusal);
                continue;
            }
            for (Group g : claims.groups) {
                boolean taken = g.nodes().stream().anyMatch(n -> owner.containsKey(n) && owner.get(n) != ep);
                if (taken) {
                    log.accept("EP " + ep.name() + " claim of " + names(g.nodes())
                            + " dropped: a node belongs to an earlier EP");
                    continue;
                }
                List<NodeView> fresh = g.nodes().stream().filter(n -> !owner.containsKey(n))
                        .collect(Collectors.toList());
                if (fresh.isEmpty()) {
                    continue;
                }
                fresh.forEach(n -> owner.put(n, ep));
                groups.add(new Group(ep, fresh, g.options()));
            }
        }
        for (NodeView n : graph.nodes()) {
            if (!owner.containsKey(n)) {
                throw new NotImplementedException("node '" + n.displayName() + "' (op " + opName(n) + ", opset "
                        + n.opsetVersion() + ") is not supported by any EP of this session ("
                        + eps.stream().map(ExecutionProvider::name).collect(Collectors.joining(", ")) + ")");
            }
        }
        return groups;
    }

    static String opName(NodeView n) {
        return n.domain().isEmpty() ? n.opType() : n.domain() + "::" + n.opType();
    }

    private static String names(List<NodeView> nodes) {
        return nodes.stream().map(NodeView::displayName).limit(5).collect(Collectors.joining(", ", "[", "]"));
    }

    /** Refuses a fused group when a path from one of its nodes leaves the group and comes back into it. */
    private static String findCycle(List<Group> groups) {
        for (Group g : groups) {
            if (g.nodes().size() < 2) {
                continue;
            }
            Set<NodeView> members = new HashSet<>(g.nodes());
            Deque<NodeView> frontier = new ArrayDeque<>();
            Set<NodeView> seen = new HashSet<>();
            for (NodeView n : g.nodes()) {
                for (NodeView c : consumers(n)) {
                    if (!members.contains(c) && seen.add(c)) {
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
                    if (seen.add(c)) {
                        frontier.add(c);
                    }
                }
            }
        }
        return null;
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
        private final List<Group> groups = new ArrayList<>();
        private String refusal;

        Collector(Graph graph) {
            this.graphNodes = new HashSet<>(graph.nodes());
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
                    refusal = "it claimed node '" + n.displayName() + "', which is not in this graph";
                    return;
                }
            }
            groups.add(new Group(null, nodes, options));
        }
    }
}
