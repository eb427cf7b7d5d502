package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Checks on the groups an EP claims: each convex, and the graph with every group contracted acyclic. */
final class Partitions {
    private Partitions() {
    }

    /** Asserts that no group has an outside node on a path between two of its nodes, and that fusing is acyclic. */
    static void assertFusible(GraphView graph, List<List<NodeView>> groups) {
        List<NodeView> nodes = graph.nodes();
        Map<NodeView, Integer> index = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            index.put(nodes.get(i), i);
        }
        List<Set<Integer>> succ = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            Set<Integer> s = new HashSet<>();
            for (ValueView v : nodes.get(i).outputs()) {
                for (NodeView c : v.consumers()) {
                    s.add(index.get(c));
                }
            }
            succ.add(s);
        }
        boolean[][] reach = new boolean[nodes.size()][nodes.size()];
        for (int i = nodes.size() - 1; i >= 0; i--) {
            for (int j : succ.get(i)) {
                reach[i][j] = true;
                for (int k = 0; k < nodes.size(); k++) {
                    reach[i][k] |= reach[j][k];
                }
            }
        }
        int[] unit = new int[nodes.size()];
        for (int i = 0; i < unit.length; i++) {
            unit[i] = -1 - i;
        }
        Set<NodeView> seen = new HashSet<>();
        for (int g = 0; g < groups.size(); g++) {
            Set<Integer> members = new HashSet<>();
            for (NodeView n : groups.get(g)) {
                assertFalse(!seen.add(n), "node " + n.name() + " is in two groups");
                members.add(index.get(n));
                unit[index.get(n)] = g;
            }
            for (int x = 0; x < nodes.size(); x++) {
                if (members.contains(x)) {
                    continue;
                }
                boolean fromGroup = false;
                boolean intoGroup = false;
                for (int m : members) {
                    fromGroup |= reach[m][x];
                    intoGroup |= reach[x][m];
                }
                assertFalse(fromGroup && intoGroup, "node " + nodes.get(x).name() + " lies on a path inside group "
                        + g);
            }
        }
        // Kahn's algorithm over the contracted graph
        Map<Integer, Set<Integer>> edges = new HashMap<>();
        Map<Integer, Integer> indegree = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            edges.putIfAbsent(unit[i], new HashSet<>());
            indegree.putIfAbsent(unit[i], 0);
        }
        for (int i = 0; i < nodes.size(); i++) {
            for (int j : succ.get(i)) {
                if (unit[i] != unit[j] && edges.get(unit[i]).add(unit[j])) {
                    indegree.merge(unit[j], 1, Integer::sum);
                }
            }
        }
        List<Integer> ready = new ArrayList<>();
        indegree.forEach((u, d) -> {
            if (d == 0) {
                ready.add(u);
            }
        });
        int done = 0;
        while (!ready.isEmpty()) {
            int u = ready.remove(ready.size() - 1);
            done++;
            for (int v : edges.get(u)) {
                if (indegree.merge(v, -1, Integer::sum) == 0) {
                    ready.add(v);
                }
            }
        }
        assertEquals(indegree.size(), done, "fusing the groups creates a cycle");
    }
}
