package io.ortex.runtime.internal.discovery;

import java.util.Map;

/** Names of the PCI vendors whose GPUs and NPUs are common, by PCI vendor id. Stateless. */
final class PciVendors {
    /** NVIDIA's PCI vendor id; its GPUs are reported as discrete. */
    static final int NVIDIA = 0x10de;
    /** AMD's PCI vendor id for graphics (the former ATI id). */
    static final int AMD = 0x1002;
    /** Intel's PCI vendor id. */
    static final int INTEL = 0x8086;

    private static final Map<Integer, String> NAMES = Map.of(
            NVIDIA, "NVIDIA",
            AMD, "AMD",
            INTEL, "Intel",
            0x13b5, "ARM",
            0x5143, "Qualcomm",
            0x1414, "Microsoft",
            0x19e5, "Huawei");

    private PciVendors() {
    }

    /**
     * Names a PCI vendor.
     *
     * @param vendorId the PCI vendor id
     * @return the vendor's name, or {@code ""} when it is not in the table
     */
    static String name(int vendorId) {
        return NAMES.getOrDefault(vendorId, "");
    }
}
