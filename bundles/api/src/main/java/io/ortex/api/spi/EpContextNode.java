package io.ortex.api.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@code EPContext} node of a compiled model as an EP reads it back (op {@code EPContext}, domain
 * {@code com.microsoft}), with its payload already loaded: from the {@code ep_cache_context} attribute when
 * {@code embed_mode=1}, else from the EP's context binary file (one per EP and compiled model), resolved inside the
 * model's folder, under the node's {@code partition_name}: the EP's main node ({@code main_context=1}) names that file
 * in {@code ep_cache_context}, its other nodes ({@code main_context=0}) name none and the runtime reads them through
 * the main node with the same {@code source} in the same model.
 *
 * <p>Loading follows ONNX Runtime's rules: the runtime offers EPContext nodes to the EPs like any other node; in
 * {@link ExecutionProvider#getCapability} an EP claims, each as its own group, the nodes whose {@code source}
 * ({@link #sourceOf}) is its key (normally its name); in {@link ExecutionProvider#compile} it gets the node's graph
 * and calls {@link GraphView#epContext(NodeView)} to read this record, then rebuilds its kernel from
 * {@link #payload()}. An EPContext node no EP claims fails session creation.
 *
 * <p>A node written by a session that shared EP contexts ({@code ep.share_ep_contexts=1}) may keep its payload, and
 * the {@link SharedBlob}s its payload refers to, in a shared context binary common to several models: the runtime
 * reads them from there (checking each blob's SHA-256), so {@link #payload()} and {@link #sharedBlob(String)} look
 * the same whichever way the model was written. Immutable.
 *
 * @param name the node's name (also the fused node name it was written for, prefix included)
 * @param source the {@code source} attribute: the key of the EP that must load it
 * @param mainContext the {@code main_context} attribute (default true)
 * @param embedded true when {@code embed_mode=1} (the default): the payload was inside the model
 * @param sdkVersion the {@code ep_sdk_version} attribute, empty when absent
 * @param partitionName the {@code partition_name} attribute, empty when absent
 * @param hardwareArchitecture the {@code hardware_architecture} attribute, empty when absent
 * @param notes the {@code notes} attribute, empty when absent
 * @param payload the payload bytes; copied at construction and by the accessor
 * @param sharedBlobs the shared blobs the node's payload refers to, by key; copied at construction
 */
public record EpContextNode(String name, String source, boolean mainContext, boolean embedded, String sdkVersion,
                            String partitionName, String hardwareArchitecture, String notes, byte[] payload,
                            Map<String, SharedBlob> sharedBlobs) {
    /** The operator type of EPContext nodes. */
    public static final String OP_TYPE = "EPContext";
    /** The operator domain of EPContext nodes. */
    public static final String DOMAIN = "com.microsoft";
    /** Attribute: 1 when the node owns its context, 0 when it refers to another node's. */
    public static final String MAIN_CONTEXT = "main_context";
    /**
     * Attribute: the payload ({@code embed_mode=1}) or the context binary's path relative to the model (the main
     * node's; absent on nodes with {@code main_context=0}).
     */
    public static final String EP_CACHE_CONTEXT = "ep_cache_context";
    /** Attribute: 1 when {@code ep_cache_context} holds the payload, 0 when it holds a path. */
    public static final String EMBED_MODE = "embed_mode";
    /** Attribute: the EP or SDK version that produced the payload. */
    public static final String EP_SDK_VERSION = "ep_sdk_version";
    /** Attribute: the name of the partition the node replaces. */
    public static final String PARTITION_NAME = "partition_name";
    /** Attribute: the key of the EP that must load the node. */
    public static final String SOURCE = "source";
    /** Attribute: the hardware architecture the payload targets. */
    public static final String HARDWARE_ARCHITECTURE = "hardware_architecture";
    /** Attribute: EP-specific notes. */
    public static final String NOTES = "notes";
    /**
     * Attribute (Ortex): the key, in the shared context binary that {@code ep_cache_context} names, of the node's
     * payload; absent when that file is the payload alone.
     */
    public static final String CONTEXT_KEY = "context_key";
    /** Attribute (Ortex): the shared context binary holding the node's shared blobs, relative to the model. */
    public static final String SHARED_CONTEXT = "shared_context";
    /** Attribute (Ortex, a list of strings): the keys of the shared blobs the node's payload refers to. */
    public static final String SHARED_BLOBS = "shared_blobs";

    /**
     * Creates the record, copying the payload.
     *
     * @param name the node name
     * @param source the source key
     * @param mainContext whether it owns its context
     * @param embedded whether the payload was embedded
     * @param sdkVersion the SDK version, empty when absent
     * @param partitionName the partition name, empty when absent
     * @param hardwareArchitecture the hardware architecture, empty when absent
     * @param notes the notes, empty when absent
     * @param payload the payload
     * @param sharedBlobs the shared blobs by key
     */
    public EpContextNode {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(sdkVersion, "sdkVersion");
        Objects.requireNonNull(partitionName, "partitionName");
        Objects.requireNonNull(hardwareArchitecture, "hardwareArchitecture");
        Objects.requireNonNull(notes, "notes");
        payload = Objects.requireNonNull(payload, "payload").clone();
        sharedBlobs = Map.copyOf(sharedBlobs == null ? Map.of() : sharedBlobs);
    }

    /**
     * Creates a record whose payload refers to no shared blob, copying the payload.
     *
     * @param name the node name
     * @param source the source key
     * @param mainContext whether it owns its context
     * @param embedded whether the payload was embedded
     * @param sdkVersion the SDK version, empty when absent
     * @param partitionName the partition name, empty when absent
     * @param hardwareArchitecture the hardware architecture, empty when absent
     * @param notes the notes, empty when absent
     * @param payload the payload
     */
    public EpContextNode(String name, String source, boolean mainContext, boolean embedded, String sdkVersion,
                         String partitionName, String hardwareArchitecture, String notes, byte[] payload) {
        this(name, source, mainContext, embedded, sdkVersion, partitionName, hardwareArchitecture, notes, payload,
                Map.of());
    }

    /**
     * Gets a shared blob the payload refers to.
     * The payload ONNX Runtime's EPs read from the node's {@code ep_cache_context} attribute or the file it names; the
     * runtime reads it for them.
     *
     * @param key the blob's key ({@link SharedBlob#key()})
     * @return a copy of its bytes, or empty when the node has no blob of that key
     */
    public Optional<byte[]> sharedBlob(String key) {
        SharedBlob b = sharedBlobs.get(key);
        return b == null ? Optional.empty() : Optional.of(b.data());
    }

    /**
     * Gets a copy of the payload.
     * The payload ONNX Runtime's EPs read from the node's {@code ep_cache_context} attribute or the file it names; the
     * runtime reads it for them.
     *
     * @return the bytes
     */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /**
     * Tells whether a node is an EPContext node.
     * ONNX Runtime's EPs read the node's op type, domain and {@code source} attribute themselves ({@code
     * Node_GetOperatorType}, {@code Node_GetDomain}, {@code Node_GetAttributeByName}).
     *
     * @param node the node
     * @return true for op {@code EPContext} in domain {@code com.microsoft}
     */
    public static boolean isEpContext(NodeView node) {
        return OP_TYPE.equals(node.opType()) && DOMAIN.equals(node.domain());
    }

    /**
     * Gets the {@code source} of an EPContext node, which EPs compare with their key in
     * {@link ExecutionProvider#getCapability}.
     * ONNX Runtime's EPs read the node's op type, domain and {@code source} attribute themselves ({@code
     * Node_GetOperatorType}, {@code Node_GetDomain}, {@code Node_GetAttributeByName}).
     *
     * @param node the node
     * @return the source, or empty when the node is not an EPContext node or has no source
     */
    public static Optional<String> sourceOf(NodeView node) {
        if (!isEpContext(node)) {
            return Optional.empty();
        }
        String s = node.stringAttr(SOURCE, "");
        return s.isEmpty() ? Optional.empty() : Optional.of(s);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EpContextNode n && name.equals(n.name) && source.equals(n.source)
                && mainContext == n.mainContext && embedded == n.embedded && sdkVersion.equals(n.sdkVersion)
                && partitionName.equals(n.partitionName) && hardwareArchitecture.equals(n.hardwareArchitecture)
                && notes.equals(n.notes) && java.util.Arrays.equals(payload, n.payload)
                && sharedBlobs.keySet().equals(n.sharedBlobs.keySet());
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, source, mainContext, embedded, sdkVersion, partitionName,
                java.util.Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "EPContext " + name + " (source " + source + ", " + (embedded ? "embedded" : "file") + ", "
                + payload.length + " bytes" + (sharedBlobs.isEmpty() ? "" : ", " + sharedBlobs.size() + " shared blobs")
                + ")";
    }
}
