package io.ortex.api;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A pairing of an execution provider with a hardware device it can use, as listed by
 * {@link Environment#epDevices()}.
 *
 * @param epName the EP's name, such as {@code CPUExecutionProvider}
 * @param epVendor the EP's vendor
 * @param epMetadata EP metadata, always with {@code version}
 * @param epOptions default EP options for this device
 * @param device the hardware device
 */
public record EpDevice(String epName, String epVendor, Map<String, String> epMetadata,
                       Map<String, String> epOptions, HardwareDevice device) {

    /** EP metadata key holding the EP's SemVer version. */
    public static final String VERSION = "version";

    /**
     * Creates an EP device, copying the maps into unmodifiable maps sorted by key.
     *
     * @param epName the EP's name
     * @param epVendor the EP's vendor
     * @param epMetadata EP metadata
     * @param epOptions default EP options
     * @param device the hardware device
     */
    public EpDevice {
        Objects.requireNonNull(epName, "epName");
        Objects.requireNonNull(device, "device");
        epVendor = epVendor == null ? "" : epVendor;
        epMetadata = Map.copyOf(new TreeMap<>(epMetadata == null ? Map.of() : epMetadata));
        epOptions = Map.copyOf(new TreeMap<>(epOptions == null ? Map.of() : epOptions));
    }

    /**
     * Gets the EP version from the metadata.
     *
     * @return the SemVer version, or an empty string
     */
    public String version() {
        return epMetadata.getOrDefault(VERSION, "");
    }

    /** Gives a one-line description fit for a shell table. */
    @Override
    public String toString() {
        return epName + " (" + epVendor + " " + version() + ") on " + device;
    }
}
