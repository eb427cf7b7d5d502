package io.ortex.api;

import java.util.List;
import java.util.Map;

/**
 * Chooses a session's EP devices in the application's own way, the counterpart of ONNX Runtime's
 * {@code EpSelectionDelegate}. Called once during session creation, after the model is loaded.
 */
@FunctionalInterface
public interface EpSelectionDelegate {
    /**
     * Selects EP devices, in priority order.
     *
     * @param devices the available EP devices, in the policies' order (NPU, GPU, CPU, ...)
     * @param modelMetadata the model's metadata: {@code producer_name}, {@code producer_version}, {@code domain},
     *     {@code model_version}, {@code doc_string}, {@code graph_name}, {@code graph_description} and every custom
     *     entry
     * @param runtimeMetadata runtime facts (currently empty)
     * @param maxSelections the most devices that may be selected (8)
     * @return the selected devices, taken from {@code devices}; selecting nothing fails session creation
     */
    List<EpDevice> select(List<EpDevice> devices, Map<String, String> modelMetadata,
                          Map<String, String> runtimeMetadata, int maxSelections);
}
