package io.ortex.api.spi;

import java.util.List;
import java.util.Optional;

/**
 * Where an EP reports the nodes it takes in {@link ExecutionProvider#getCapability}, the counterpart of ONNX
 * Runtime's {@code OrtEpGraphSupportInfo}. Not thread safe; valid only during the call.
 */
public interface GraphSupport {
    /**
     * Claims a group of nodes to be fused into one compiled partition. No node outside the group may lie on a path
     * between two nodes of the group; a group that breaks this, or that touches a node owned by another EP, is
     * refused and the EP's whole answer for this graph is dropped.
     * Mirrors ONNX Runtime's {@code EpGraphSupportInfo_AddNodesToFuse}.
     *
     * @param nodes the nodes, at least one
     * @param options fusion options
     */
    void addNodesToFuse(List<NodeView> nodes, FusionOptions options);

    /**
     * Claims a group of nodes with default fusion options.
     * Mirrors ONNX Runtime's {@code EpGraphSupportInfo_AddNodesToFuse}.
     *
     * @param nodes the nodes, at least one
     */
    default void addNodesToFuse(List<NodeView> nodes) {
        addNodesToFuse(nodes, FusionOptions.DEFAULT);
    }

    /**
     * Claims one node to run on its own; it is compiled as a group of one.
     * Mirrors ONNX Runtime's {@code EpGraphSupportInfo_AddSingleNode}.
     *
     * @param node the node
     */
    void addSingleNode(NodeView node);

    /**
     * Tells which EP already took a node: an EP earlier in the session's priority order, whose claims are settled
     * before this EP is asked, the counterpart of ONNX Runtime's {@code Node_GetEpName}. An EP that claims large
     * groups leaves such nodes out, since a group touching one is refused. Added in package version 0.3.0; the
     * default knows of no assignment.
     *
     * @param node a node of the graph being offered
     * @return the name of the EP that owns it, or empty when no EP took it yet
     */
    default Optional<String> assignedEp(NodeView node) {
        return Optional.empty();
    }

    /**
     * Finds the kernel of this EP's registry ({@link ExecutionProvider#kernelRegistry()}) that would run a node,
     * by domain, op type, opset version and the input types the model declares. Mirrors ONNX Runtime's
     * {@code EpGraphSupportInfo_LookUpKernel}. Added in package version 0.6.0; the default finds none.
     *
     * @param node a node of the graph being offered
     * @return the matching definition, or empty
     */
    default Optional<KernelDef> lookUpKernel(NodeView node) {
        return Optional.empty();
    }
}
