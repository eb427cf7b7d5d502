package io.ortex.runtime.internal;

import io.ortex.api.NodeAssignment;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Reads which nodes a session's partitioning fused together, for the fusion tests. */
final class FusedGroups {
    private FusedGroups() {
    }

    /**
     * Lists the op types each partition of more than one node holds, joined with {@code +} in node order, partitions
     * in the order they first appear.
     *
     * @param assignment a session's node assignment
     * @return one entry per fused partition, such as {@code "MatMul+Add"}
     */
    static List<String> fusedGroups(List<NodeAssignment> assignment) {
        Map<String, String> groups = new LinkedHashMap<>();
        Map<String, Integer> sizes = new HashMap<>();
        for (NodeAssignment a : assignment) {
            groups.merge(a.partition(), a.opType(), (x, y) -> x + "+" + y);
            sizes.merge(a.partition(), 1, Integer::sum);
        }
        return groups.entrySet().stream().filter(e -> sizes.get(e.getKey()) > 1).map(Map.Entry::getValue)
                .collect(Collectors.toList());
    }
}
