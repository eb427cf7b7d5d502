package io.ortex.api.spi;

import io.ortex.api.HardwareDevice;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One device an {@link EpFactory} supports, with the EP metadata and default EP options for it; the runtime turns
 * it into an {@link io.ortex.api.EpDevice}. The metadata must not contain {@code version}: the runtime adds it from
 * {@link EpFactory#version()}.
 * Mirrors ONNX Runtime's {@code CreateEpDevice} (its EP metadata and options).
 *
 * @param device the hardware device
 * @param epMetadata EP metadata for this device
 * @param epOptions default EP options for this device
 */
public record SupportedDevice(HardwareDevice device, Map<String, String> epMetadata,
                              Map<String, String> epOptions) {
    /**
     * Creates the entry, copying the maps.
     *
     * @param device the hardware device
     * @param epMetadata EP metadata
     * @param epOptions default EP options
     */
    public SupportedDevice {
        Objects.requireNonNull(device, "device");
        epMetadata = Map.copyOf(new TreeMap<>(epMetadata == null ? Map.of() : epMetadata));
        epOptions = Map.copyOf(new TreeMap<>(epOptions == null ? Map.of() : epOptions));
    }

    /**
     * Creates an entry with no metadata and no options.
     * Mirrors ONNX Runtime's {@code CreateEpDevice} (its EP metadata and options).
     *
     * @param device the hardware device
     * @return the entry
     */
    public static SupportedDevice of(HardwareDevice device) {
        return new SupportedDevice(device, Map.of(), Map.of());
    }
}
