package io.ortex.api.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A graph written as a standalone ONNX model by {@link GraphView#exportModel}: the serialized {@code ModelProto},
 * the folder its external-data references are relative to, and the name each node got in it. An EP hands the bytes
 * to a library that reads ONNX (ONNX Runtime, a vendor compiler) and maps the library's messages, which name nodes,
 * back to the graph's nodes through {@link #nodeNames()}.
 *
 * <p>The byte array is not copied, as models can be large: treat it as read-only.
 */
public final class ModelExport {
    private final byte[] bytes;
    private final Path externalDataFolder;
    private final List<String> nodeNames;

    /**
     * Creates the result; the array is taken as it is.
     *
     * @param bytes the serialized model
     * @param externalDataFolder the folder external-data locations are relative to, or {@code null} when the model
     *     refers to no external data
     * @param nodeNames the node names in the model, in the order of the graph's {@link GraphView#nodes()}
     */
    public ModelExport(byte[] bytes, Path externalDataFolder, List<String> nodeNames) {
        this.bytes = Objects.requireNonNull(bytes, "bytes");
        this.externalDataFolder = externalDataFolder;
        this.nodeNames = List.copyOf(nodeNames);
    }

    /**
     * Gets the serialized {@code ModelProto}.
     * ONNX Runtime's counterpart is its {@code ort_graph_to_proto.h} helper, which serializes an {@code OrtGraph}.
     *
     * @return the bytes themselves, not a copy; do not change them
     */
    public byte[] bytes() {
        return bytes;
    }

    /**
     * Gets the folder that the model's external-data locations are relative to. An ONNX reader given the bytes needs
     * it (ONNX Runtime: the session entry {@code session.model_external_initializers_file_folder_path}).
     *
     * @return the folder, or empty when the model holds all of its data
     */
    public Optional<Path> externalDataFolder() {
        return Optional.ofNullable(externalDataFolder);
    }

    /**
     * Gets the name each node has in the model: its own name, or {@link NodeView#displayName()} when it has none,
     * with {@code _<id>} appended where two nodes would share a name, so that every name is unique.
     * ONNX Runtime's counterpart is its {@code ort_graph_to_proto.h} helper, which serializes an {@code OrtGraph}.
     *
     * @return the names, in the order of the graph's nodes
     */
    public List<String> nodeNames() {
        return nodeNames;
    }

    @Override
    public String toString() {
        return "ModelExport[" + bytes.length + " bytes, " + nodeNames.size() + " nodes"
                + (externalDataFolder == null ? "" : ", external data in " + externalDataFolder) + "]";
    }
}
