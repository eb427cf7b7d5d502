package io.ortex.runtime.internal.epcontext;

import io.ortex.api.InvalidModelException;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.SharedBlob;
import io.ortex.onnx.ExternalData;
import io.ortex.onnx.Node;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an EPContext node of a loaded model and its payload, for {@link io.ortex.api.spi.GraphView#epContext}. The
 * payload is read from the node's message, as bytes (a string attribute holds binary data), or from the context
 * binary file it names, which must lie inside the context folder. Stateless.
 */
public final class EpContextReader {
    private EpContextReader() {
    }

    /**
     * Reads a node.
     *
     * @param node the node, of a model the runtime loaded
     * @param contextFolder the folder context binary paths are relative to, or {@code null} when there is none (a
     *     model loaded from bytes without {@code ep.context_file_path})
     * @return the node with its payload
     * @throws InvalidModelException when the node is not an EPContext node or its payload cannot be read; the
     *     message names the node and the file
     */
    public static EpContextNode read(Node node, Path contextFolder) {
        String what = "EPContext node '" + node.displayName() + "'";
        if (!EpContextNode.isEpContext(node)) {
            throw new InvalidModelException("node '" + node.displayName() + "' (" + node.opType()
                    + ") is not an EPContext node");
        }
        NodeProto proto = node.proto();
        AttributeProto cache = attribute(proto, EpContextNode.EP_CACHE_CONTEXT);
        if (cache == null) {
            throw new InvalidModelException(what + " has no " + EpContextNode.EP_CACHE_CONTEXT + " attribute");
        }
        long embedMode = node.intAttr(EpContextNode.EMBED_MODE, 1);
        String contextKey = node.stringAttr(EpContextNode.CONTEXT_KEY, "");
        byte[] payload;
        if (embedMode == 1) {
            payload = cache.getS().toByteArray();
        } else if (embedMode == 0 && !contextKey.isEmpty()) {
            Path file = sharedFile(what, cache.getS().toStringUtf8(), contextFolder);
            payload = SharedContextFile.read(file, List.of(contextKey), what).get(contextKey);
        } else if (embedMode == 0) {
            payload = readFile(what, cache.getS().toStringUtf8(), contextFolder);
        } else {
            throw new InvalidModelException(what + ": " + EpContextNode.EMBED_MODE + " must be 0 or 1, not "
                    + embedMode);
        }
        return new EpContextNode(node.name(), node.stringAttr(EpContextNode.SOURCE, ""),
                node.intAttr(EpContextNode.MAIN_CONTEXT, 1) != 0, embedMode == 1,
                node.stringAttr(EpContextNode.EP_SDK_VERSION, ""), node.stringAttr(EpContextNode.PARTITION_NAME, ""),
                node.stringAttr(EpContextNode.HARDWARE_ARCHITECTURE, ""), node.stringAttr(EpContextNode.NOTES, ""),
                payload, sharedBlobs(node, what, contextFolder));
    }

    /** Reads the shared blobs a node lists, from the shared context binary it names. */
    private static Map<String, SharedBlob> sharedBlobs(Node node, String what, Path contextFolder) {
        AttributeProto keys = attribute(node.proto(), EpContextNode.SHARED_BLOBS);
        if (keys == null || keys.getStringsCount() == 0) {
            return Map.of();
        }
        List<String> wanted = new ArrayList<>();
        for (com.google.protobuf.ByteString k : keys.getStringsList()) {
            String key = k.toStringUtf8();
            if (!SharedBlob.isKey(key)) {
                throw new InvalidModelException(what + ": " + EpContextNode.SHARED_BLOBS + " holds '" + key
                        + "', which is not a SHA-256 key");
            }
            wanted.add(key);
        }
        String location = node.stringAttr(EpContextNode.SHARED_CONTEXT, "");
        Path file = sharedFile(what, location, contextFolder);
        Map<String, SharedBlob> out = new LinkedHashMap<>();
        SharedContextFile.read(file, wanted, what).forEach((k, v) -> out.put(k, new SharedBlob(k, v)));
        return out;
    }

    private static Path sharedFile(String what, String location, Path folder) {
        if (folder == null) {
            throw new InvalidModelException(what + " keeps its context in shared binary '" + location + "', but the"
                    + " model was loaded from bytes: set " + SessionOptions.EP_CONTEXT_FILE_PATH + " to where the"
                    + " model lives");
        }
        if (location.isEmpty()) {
            throw new InvalidModelException(what + " names no shared context binary");
        }
        return ExternalData.resolveInside(folder, location, what + " shared context binary");
    }

    private static byte[] readFile(String what, String location, Path folder) {
        if (folder == null) {
            throw new InvalidModelException(what + " keeps its context in file '" + location + "', but the model was"
                    + " loaded from bytes: set " + SessionOptions.EP_CONTEXT_FILE_PATH + " to where the model lives");
        }
        if (location.isEmpty()) {
            throw new InvalidModelException(what + ": " + EpContextNode.EP_CACHE_CONTEXT + " names no file");
        }
        Path file = ExternalData.resolveInside(folder, location, what + " context binary");
        if (!Files.isRegularFile(file)) {
            throw new InvalidModelException(io.ortex.api.ErrorCode.NO_SUCH_FILE, what + ": context binary " + file
                    + " does not exist", null);
        }
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new InvalidModelException(what + ": cannot read context binary " + file + ": " + e.getMessage());
        }
    }

    /** Finds an attribute of a node message by name. */
    static AttributeProto attribute(NodeProto proto, String name) {
        for (AttributeProto a : proto.getAttributeList()) {
            if (a.getName().equals(name)) {
                return a;
            }
        }
        return null;
    }
}
