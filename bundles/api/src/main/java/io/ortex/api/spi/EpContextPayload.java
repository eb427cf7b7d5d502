package io.ortex.api.spi;

import java.util.Objects;

/**
 * What an EP hands the runtime for one compiled partition when EPContext generation is on
 * ({@code ep.context_enable=1}): the bytes that let it rebuild the partition's kernel later without redoing the
 * compile work, and the descriptive attributes of the {@code EPContext} node the runtime writes for it. The runtime
 * decides where the bytes go: into the node's {@code ep_cache_context} attribute ({@code ep.context_embed_mode=1}) or
 * into a context binary file beside the model ({@code 0}, the default); the EP never writes files itself. Immutable.
 *
 * @param data the payload; copied at construction and by the accessor
 * @param sdkVersion written as {@code ep_sdk_version}: the version of the EP (or its SDK) that produced the payload
 * @param hardwareArchitecture written as {@code hardware_architecture} when not empty
 * @param notes written as {@code notes} when not empty: anything else the EP needs to read the payload back
 */
public record EpContextPayload(byte[] data, String sdkVersion, String hardwareArchitecture, String notes) {
    /**
     * Creates a payload, copying the data.
     *
     * @param data the payload
     * @param sdkVersion the EP or SDK version, not null
     * @param hardwareArchitecture the hardware architecture, empty when none
     * @param notes EP notes, empty when none
     */
    public EpContextPayload {
        data = Objects.requireNonNull(data, "data").clone();
        Objects.requireNonNull(sdkVersion, "sdkVersion");
        hardwareArchitecture = hardwareArchitecture == null ? "" : hardwareArchitecture;
        notes = notes == null ? "" : notes;
    }

    /**
     * Gets a copy of the payload.
     *
     * @return the bytes
     */
    @Override
    public byte[] data() {
        return data.clone();
    }

    /**
     * Gets the payload's size without copying it.
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
                && notes.equals(p.notes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(java.util.Arrays.hashCode(data), sdkVersion, hardwareArchitecture, notes);
    }

    @Override
    public String toString() {
        return "EpContextPayload[" + data.length + " bytes, sdk " + sdkVersion
                + (hardwareArchitecture.isEmpty() ? "" : ", " + hardwareArchitecture) + "]";
    }
}
