package io.ortex.runtime.internal.epcontext;

import io.ortex.api.spi.EpContextPayload;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.NodeView;
import java.util.List;

/**
 * A partition of the main graph that an EP compiled and could save: what becomes one EPContext node.
 *
 * @param epName the EP's name, written as the node's {@code source}
 * @param fused the fused node that stands for the partition (its name and its input and output order)
 * @param nodes the original nodes the partition replaces
 * @param payload what the EP's kernel gave as its EPContext payload
 */
public record CompiledPartition(String epName, FusedNode fused, List<NodeView> nodes, EpContextPayload payload) {
    /**
     * Creates the partition, copying the node list.
     *
     * @param epName the EP name
     * @param fused the fused node
     * @param nodes the nodes
     * @param payload the payload
     */
    public CompiledPartition {
        nodes = List.copyOf(nodes);
    }
}
