package io.ortex.api.spi;

import java.util.List;

/**
 * The node that stands for a compiled group in the session's graph. Stays valid for the EP's lifetime.
 */
public interface FusedNode {
    /**
     * Gets the fused node's name, unique in the session and stable for the same model.
     * Mirrors ONNX Runtime's {@code Node_GetName} on a fused node passed to {@code OrtEp::Compile}.
     *
     * @return the name
     */
    String name();

    /**
     * Gets the names of the values the kernel receives, in order.
     * Mirrors ONNX Runtime's {@code Node_GetInputs} on a fused node passed to {@code OrtEp::Compile}.
     *
     * @return the input names
     */
    List<String> inputNames();

    /**
     * Gets the names of the values the kernel returns, in order.
     * Mirrors ONNX Runtime's {@code Node_GetOutputs} on a fused node passed to {@code OrtEp::Compile}.
     *
     * @return the output names
     */
    List<String> outputNames();
}
