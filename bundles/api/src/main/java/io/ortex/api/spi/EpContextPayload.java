package io.ortex.api.spi;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an EP hands the runtime for one compiled partition when EPContext generation is on
 * ({@code ep.context_enable=1}): the bytes that let it rebuild the partition's kernel later without redoing the
 * compile work, and the descriptive attributes of the {@code EPContext} node the runtime writes for it. The runtime
 * decides where the bytes go: into the node's {@code ep_cache_context} attribute ({@code ep.context_embed_mode=1}) or
 * into a context binary file beside the model ({@code 0}, the default); the EP never writes files itself.
 *
 * <p>When the session shares EP contexts ({@code ep.share_ep_contexts=1}, which the EP sees in its session
 * configuration), the EP may move parts of the payload that other partitions or models could hold too (packed
 * weights) into {@link #sharedBlobs()}, writing only their keys into {@link #data()}. The runtime stores each blob
 * once, by content, in the group's shared context binary, which the last session of the group
 * ({@code ep.stop_share_ep_contexts=1}) writes; loading gives them back through
 * {@link EpContextNode#sharedBlob(String)}. Without sharing the runtime accepts blobs too and writes them to a shared
 * context binary of that model alone. Immutable.
 * The bytes ONNX Runtime's EPs store in an EPContext node's {@code ep_cache_context}; Ortex's own type.
 *
 * @param data the payload; copied at construction and by the accessor
 * @param sdkVersion written as {@code ep_sdk_version}: the version of the EP (or its SDK) that produced the payload
 * @param hardwareArchitecture written as {@code hardware_architecture} when not empty
 * @param notes written as {@code notes} when not empty: anything else the EP needs to read the payload back
 * @param sharedBlobs the blobs the payload refers to by key; copied at construction, duplicates (same key) dropped
 */
public record EpContextPayload(byte[] data, String sdkVersion, String hardwareArchitecture, String notes,
                               List<SharedBlob> sharedBlobs) {
    /**
     * Creates a payload, copying the data.
     *
     * @param data the payload
     * @param sdkVersion the EP or SDK version, not null
     * @param hardwareArchitecture the hardware architecture, empty when none
     * @param notes EP notes, empty when none
     * @param sharedBlobs the blobs the payload refers to, empty when none
     */
    public EpContextPayload {
        data = Objects.requireNonNull(data, "data").clone();
        Objects.requireNonNull(sdkVersion, "sdkVersion");
        hardwareArchitecture = hardwareArchitecture == null ? "" : hardwareArchitecture;
        notes = notes == null ? "" : notes;
        Map<String, SharedBlob> unique = new LinkedHashMap<>();
        for (SharedBlob b : sharedBlobs == null ? List.<SharedBlob>of() : sharedBlobs) {
            unique.putIfAbsent(Objects.requireNonNull(b, "shared blob").key(), b);
        }
        sharedBlobs = List.copyOf(unique.values());
    }

    /**
     * Creates a payload that refers to no shared blob, copying the data.
     * The bytes ONNX Runtime's EPs store in an EPContext node's {@code ep_cache_context}; Ortex's own type.
     *
     * @param data the payload
     * @param sdkVersion the EP or SDK version, not null
     * @param hardwareArchitecture the hardware architecture, empty when none
     * @param notes EP notes, empty when none
     */
    public EpContextPayload(byte[] data, String sdkVersion, String hardwareArchitecture, String notes) {
        this(data, sdkVersion, hardwareArchitecture, notes, List.of());
    }

    /**
     * Gets a copy of the payload.
     * The bytes ONNX Runtime's EPs store in an EPContext node's {@code ep_cache_context}; Ortex's own type.
     *
     * @return the bytes
     */
    @Override
    public byte[] data() {
        return data.clone();
    }

    /**
     * Gets the payload's size without copying it.
     * The bytes ONNX Runtime's EPs store in an EPContext node's {@code ep_cache_context}; Ortex's own type.
     *
     * @return the number of bytes
     */
    public int size() {
        return data.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EpContextPayload p && java.util.Arrays.equals(data, p.data)
                && sdkVersion.equals(p.sdkVersion) && hardwareArchitecture.equals(p.hardwareArchitecture)
                && notes.equals(p.notes) && sharedBlobs.equals(p.sharedBlobs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(java.util.Arrays.hashCode(data), sdkVersion, hardwareArchitecture, notes, sharedBlobs);
    }

    @Override
    public String toString() {
        return "EpContextPayload[" + data.length + " bytes, sdk " + sdkVersion
                + (hardwareArchitecture.isEmpty() ? "" : ", " + hardwareArchitecture)
                + (sharedBlobs.isEmpty() ? "" : ", " + sharedBlobs.size() + " shared blobs") + "]";
    }
}
