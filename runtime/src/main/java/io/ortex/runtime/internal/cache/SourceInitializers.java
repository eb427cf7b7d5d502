package io.ortex.runtime.internal.cache;

import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps out of a compile cache entry the weights the source model still holds: the initializers of the compiled
 * model's main graph that equal the source's initializer of the same name (those of the nodes no EP compiled, such as
 * an embedding table) are left out when the entry is stored, and taken from the source, already in memory, when it
 * is loaded. The entry names them in its metadata ({@value #NAMES_KEY}, one name a line), so that an entry that does
 * not fit its source is noticed. The compiled partitions' payloads stay in the entry: they are the EPs' own form of
 * their weights. Stateless.
 */
final class SourceInitializers {
    /** The metadata entry of a cache entry: the names of the initializers it takes from its source, one a line. */
    static final String NAMES_KEY = "ortex.compile_cache.source_initializers";

    private SourceInitializers() {
    }

    /**
     * Leaves out of a compiled model the initializers its source holds unchanged.
     *
     * @param compiled the compiled model
     * @param source the source model
     * @return the model to store
     */
    static ModelProto strip(ModelProto compiled, ModelProto source) {
        Map<String, TensorProto> held = byName(source.getGraph());
        List<TensorProto> kept = new ArrayList<>();
        List<String> left = new ArrayList<>();
        for (TensorProto t : compiled.getGraph().getInitializerList()) {
            // a name with a line break cannot be listed; such a rare initializer stays in the entry
            if (!t.getName().contains("\n") && t.equals(held.get(t.getName()))) {
                left.add(t.getName());
            } else {
                kept.add(t);
            }
        }
        ModelProto.Builder b = compiled.toBuilder();
        b.getGraphBuilder().clearInitializer().addAllInitializer(kept);
        b.addMetadataProps(StringStringEntryProto.newBuilder().setKey(NAMES_KEY).setValue(String.join("\n", left)));
        return b.build();
    }

    /**
     * Puts back the initializers a stored entry took from its source.
     *
     * @param entry the stored model
     * @param source the source model
     * @return the compiled model, whole
     * @throws IllegalStateException when the entry does not list them, or the source lacks one
     */
    static ModelProto restore(ModelProto entry, ModelProto source) {
        String names = null;
        List<StringStringEntryProto> metadata = new ArrayList<>();
        for (StringStringEntryProto e : entry.getMetadataPropsList()) {
            if (e.getKey().equals(NAMES_KEY)) {
                names = e.getValue();
            } else {
                metadata.add(e);
            }
        }
        if (names == null) {
            throw new IllegalStateException("it does not say which initializers its source holds");
        }
        Map<String, TensorProto> held = byName(source.getGraph());
        List<TensorProto> restored = new ArrayList<>();
        for (String name : names.isEmpty() ? List.<String>of() : List.of(names.split("\n", -1))) {
            TensorProto t = held.get(name);
            if (t == null) {
                throw new IllegalStateException("it takes initializer '" + name + "' from its source, which has none");
            }
            restored.add(t);
        }
        ModelProto.Builder b = entry.toBuilder().clearMetadataProps().addAllMetadataProps(metadata);
        b.getGraphBuilder().addAllInitializer(restored);
        return b.build();
    }

    private static Map<String, TensorProto> byName(GraphProto g) {
        Map<String, TensorProto> out = new HashMap<>();
        g.getInitializerList().forEach(t -> out.putIfAbsent(t.getName(), t));
        return out;
    }
}
