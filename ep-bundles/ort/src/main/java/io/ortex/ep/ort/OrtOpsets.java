package io.ortex.ep.ort;

import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.NodeView;
import java.util.Map;
import java.util.Optional;

/**
 * The operator domains and opset versions ONNX Runtime 1.29 runs: the default ONNX domain up to opset 26, ONNX-ML
 * ({@code ai.onnx.ml}) up to 5, and Microsoft's contrib operators ({@code com.microsoft}) at version 1. ONNX Runtime
 * refuses a whole model stamped with a newer opset ("under development"), so such a model is left to other EPs
 * entirely. Whether ONNX Runtime has a kernel for a node's types and attributes is not listed here: the EP asks ONNX
 * Runtime itself ({@link PartitionProbe}). Update these numbers with the ONNX Runtime version.
 */
final class OrtOpsets {
    /** The newest opset of each domain ONNX Runtime runs. */
    static final Map<String, Integer> NEWEST = Map.of("", 26, "ai.onnx.ml", 5, "com.microsoft", 1);

    private OrtOpsets() {
    }

    /**
     * Tells why ONNX Runtime would refuse a model's opset imports, if it would.
     *
     * @param imports the model's opset imports ({@code ""} for ONNX)
     * @return the reason, or empty when ONNX Runtime accepts them
     */
    static Optional<String> unsupported(Map<String, Integer> imports) {
        for (Map.Entry<String, Integer> e : imports.entrySet()) {
            Integer newest = NEWEST.get(e.getKey());
            if (newest != null && e.getValue() > newest) {
                return Optional.of("the model imports opset " + e.getValue() + " of domain '"
                        + (e.getKey().isEmpty() ? "ai.onnx" : e.getKey()) + "'; ONNX Runtime runs up to " + newest);
            }
        }
        return Optional.empty();
    }

    /**
     * Tells whether a node is of a domain and opset ONNX Runtime runs (EPContext nodes are not).
     *
     * @param node the node
     * @return true when ONNX Runtime may have a kernel for it
     */
    static boolean supports(NodeView node) {
        Integer newest = NEWEST.get(node.domain());
        return newest != null && node.opsetVersion() <= newest && !EpContextNode.isEpContext(node);
    }
}
