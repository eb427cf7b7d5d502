package io.ortex.ep.cpu.fusion;

import io.ortex.api.spi.NodeView;
import java.util.List;

/**
 * One occurrence of a fusion in a graph: its nodes (claimed together) and what builds its kernel.
 *
 * @param fusion the fusion's name, for logs and profiles
 * @param nodes the nodes of the group
 * @param kernel builds the fused kernel's fast path once the group's inputs and outputs are known
 * @param dropConstants whether the fast path keeps its own copy of the constant initializers the group reads, so
 *     that the runtime need not feed (or even decode) them
 */
public record FusionMatch(String fusion, List<NodeView> nodes, FastPath.Factory kernel, boolean dropConstants) {
    /**
     * Creates the match, copying the node list.
     *
     * @param fusion the fusion's name
     * @param nodes the nodes
     * @param kernel builds the fast path
     * @param dropConstants whether the fast path needs no constant initializer fed
     */
    public FusionMatch {
        nodes = List.copyOf(nodes);
    }

    /**
     * A match whose fast path is fed every input of the group.
     *
     * @param fusion the fusion's name
     * @param nodes the nodes
     * @param kernel builds the fast path
     */
    public FusionMatch(String fusion, List<NodeView> nodes, FastPath.Factory kernel) {
        this(fusion, nodes, kernel, false);
    }
}
