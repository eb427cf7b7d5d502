package io.ortex.api;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A hardware device found on this machine, configured by the operator, or offered as a virtual device by an EP.
 * Two devices with equal fields are the same device.
 *
 * @param type CPU, GPU or NPU
 * @param vendorId the PCI vendor id (0 when unknown)
 * @param deviceId the vendor's device id (not unique; 0 when unknown)
 * @param vendor the vendor name
 * @param metadata extra facts such as {@code pci_bus_id}, {@code Discrete} or {@code is_virtual}, sorted by key
 */
public record HardwareDevice(HardwareDeviceType type, int vendorId, int deviceId, String vendor,
                             Map<String, String> metadata) {

    /** Metadata key marking a device that is not present on this machine ({@code "1"}). */
    public static final String IS_VIRTUAL = "is_virtual";

    /**
     * Creates a device, copying the metadata into an unmodifiable map sorted by key.
     *
     * @param type CPU, GPU or NPU
     * @param vendorId the PCI vendor id
     * @param deviceId the vendor's device id
     * @param vendor the vendor name
     * @param metadata the metadata
     */
    public HardwareDevice {
        Objects.requireNonNull(type, "type");
        vendor = vendor == null ? "" : vendor;
        metadata = Map.copyOf(new TreeMap<>(metadata == null ? Map.of() : metadata));
    }

    /**
     * Tells whether this is a virtual device ({@code is_virtual=1}).
     *
     * @return true for a virtual device
     */
    public boolean isVirtual() {
        return "1".equals(metadata.get(IS_VIRTUAL));
    }

    /** Gives a one-line description fit for a shell table. */
    @Override
    public String toString() {
        return String.format("%s %s (vendor 0x%04x, device 0x%04x)%s", type, vendor, vendorId, deviceId,
                metadata.isEmpty() ? "" : " " + new TreeMap<>(metadata));
    }
}
