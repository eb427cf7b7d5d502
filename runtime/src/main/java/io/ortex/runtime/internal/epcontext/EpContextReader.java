package io.ortex.runtime.internal.epcontext;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.SharedBlob;
import io.ortex.onnx.ExternalData;
import io.ortex.onnx.Node;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an EPContext node of a loaded model and its payload, for {@link io.ortex.api.spi.GraphView#epContext}. The
 * payload is read from the node's message, as bytes (a string attribute holds binary data) when
 * {@code embed_mode=1}; else, for a main node, from the {@link ContextBinaryFile} it names (which must lie inside the
 * context folder) under its {@code partition_name}; for a node with {@code main_context=0}, from its EP's main node's
 * binary ({@link MainContextResolver}); for a node of a shared group, from the {@link SharedContextFile} under its
 * {@code context_key}. Stateless.
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
        String what = "EPContext node " + Names.quote(node.displayName());
        if (!EpContextNode.isEpContext(node)) {
            throw new InvalidModelException("node " + Names.quote(node.displayName()) + " (" + node.opType()
                    + ") is not an EPContext node");
        }
        NodeProto proto = node.proto();
        AttributeProto cache = attribute(proto, EpContextNode.EP_CACHE_CONTEXT);
        long embedMode = node.intAttr(EpContextNode.EMBED_MODE, 1);
        boolean main = node.intAttr(EpContextNode.MAIN_CONTEXT, 1) != 0;
        String contextKey = node.stringAttr(EpContextNode.CONTEXT_KEY, "");
        String partition = node.stringAttr(EpContextNode.PARTITION_NAME, "");
        if (embedMode != 0 && embedMode != 1) {
            throw new InvalidModelException(what + ": " + EpContextNode.EMBED_MODE + " must be 0 or 1, not "
                    + embedMode);
        }
        if (cache == null && (main || !contextKey.isEmpty())) {
            throw new InvalidModelException(what + " has no " + EpContextNode.EP_CACHE_CONTEXT + " attribute");
        }
        byte[] payload;
        if (embedMode == 0 && !contextKey.isEmpty()) {
            Path file = sharedFile(what, cache.getS().toStringUtf8(), contextFolder);
            payload = SharedContextFile.read(file, List.of(contextKey), what).get(contextKey);
        } else if (!main) {
            payload = MainContextResolver.payload(node, partition, what, contextFolder);
        } else if (embedMode == 1) {
            payload = cache.getS().toByteArray();
        } else {
            payload = ContextBinaryFile.read(contextBinary(what, cache.getS().toStringUtf8(), contextFolder),
                    requirePartition(what, partition), what);
        }
        return new EpContextNode(node.displayName(), node.stringAttr(EpContextNode.SOURCE, ""), main, embedMode == 1,
                node.stringAttr(EpContextNode.EP_SDK_VERSION, ""), partition,
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
                throw new InvalidModelException(what + ": " + EpContextNode.SHARED_BLOBS + " holds "
                        + Names.quote(key) + ", which is not a SHA-256 key");
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
            throw new InvalidModelException(what + " keeps its context in shared binary " + Names.quote(location)
                    + ", but the"
                    + " model was loaded from bytes: set " + SessionOptions.EP_CONTEXT_FILE_PATH + " to where the"
                    + " model lives");
        }
        if (location.isEmpty()) {
            throw new InvalidModelException(what + " names no shared context binary");
        }
        return ExternalData.resolveInside(folder, location, what + " shared context binary");
    }

    /** Checks that a node names the partition it reads from a context binary. */
    static String requirePartition(String what, String partition) {
        if (partition.isEmpty()) {
            throw new InvalidModelException(what + " has no " + EpContextNode.PARTITION_NAME + ", which finds its"
                    + " payload in the context binary");
        }
        return partition;
    }

    /** Resolves the context binary a main node names inside the context folder. */
    static Path contextBinary(String what, String location, Path folder) {
        if (folder == null) {
            throw new InvalidModelException(what + " keeps its context in file " + Names.quote(location)
                    + ", but the model was"
                    + " loaded from bytes: set " + SessionOptions.EP_CONTEXT_FILE_PATH + " to where the model lives");
        }
        if (location.isEmpty()) {
            throw new InvalidModelException(what + ": " + EpContextNode.EP_CACHE_CONTEXT + " names no file");
        }
        return ExternalData.resolveInside(folder, location, what + " context binary");
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
