package io.ortex.runtime.internal;

import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx.ModelProto;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A model's metadata as ONNX Runtime hands it to selection delegates: {@code producer_name},
 * {@code producer_version}, {@code domain}, {@code model_version}, {@code doc_string}, {@code graph_name},
 * {@code graph_description} (where set), and every custom {@code metadata_props} entry.
 */
final class ModelMetadata {
    private ModelMetadata() {
    }

    static Map<String, String> of(OnnxModel model) {
        Map<String, String> m = new TreeMap<>(model.metadata());
        ModelProto p = model.proto();
        putIfSet(m, "producer_name", p.getProducerName());
        putIfSet(m, "producer_version", p.getProducerVersion());
        putIfSet(m, "domain", p.getDomain());
        if (p.hasModelVersion()) {
            m.put("model_version", Long.toString(p.getModelVersion()));
        }
        putIfSet(m, "doc_string", p.getDocString());
        putIfSet(m, "graph_name", p.getGraph().getName());
        putIfSet(m, "graph_description", p.getGraph().getDocString());
        return Collections.unmodifiableMap(m);
    }

    private static void putIfSet(Map<String, String> m, String key, String value) {
        if (value != null && !value.isEmpty()) {
            m.put(key, value);
        }
    }
}
