package io.ortex.api.spi;

import java.util.List;

/**
 * Where an EP reports the nodes it takes in {@link ExecutionProvider#getCapability}, the counterpart of ONNX
 * Runtime's {@code OrtEpGraphSupportInfo}. Not thread safe; valid only during the call.
 */
public interface GraphSupport {
    /**
     * Claims a group of nodes to be fused into one compiled partition. No node outside the group may lie on a path
     * between two nodes of the group; a group that breaks this, or that touches a node owned by another EP, is
     * refused and the EP's whole answer for this graph is dropped.
     *
     * @param nodes the nodes, at least one
     * @param options fusion options
     */
    void addNodesToFuse(List<NodeView> nodes, FusionOptions options);

    /**
     * Claims a group of nodes with default fusion options.
     *
     * @param nodes the nodes, at least one
     */
    default void addNodesToFuse(List<NodeView> nodes) {
        addNodesToFuse(nodes, FusionOptions.DEFAULT);
    }

    /**
     * Claims one node to run on its own; it is compiled as a group of one.
     *
     * @param node the node
     */
    void addSingleNode(NodeView node);
}
