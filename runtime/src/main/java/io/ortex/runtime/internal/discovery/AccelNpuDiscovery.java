package io.ortex.runtime.internal.discovery;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;

/**
 * Finds NPUs through the compute-accelerator subsystem: every {@code <sys>/class/accel/accelN} whose {@code device}
 * is a PCI function, in index order. Names without an integer suffix ({@code accelabc}) are ignored; an accelerator
 * without {@code device/vendor} is left out; one whose files cannot be read is left out with a warning while the
 * others are still reported. {@code /dev/accel} is not read.
 */
final class AccelNpuDiscovery {
    /** Metadata key of the accelerator index {@code N} of {@code accelN}. */
    static final String ACCEL_IDX = "accel_idx";

    private final Path accel;
    private final Logger log;

    /**
     * Creates the discovery.
     *
     * @param sysRoot the sysfs root, normally {@code /sys}
     * @param log where skipped accelerators are reported
     */
    AccelNpuDiscovery(Path sysRoot, Logger log) {
        this.accel = sysRoot.resolve("class").resolve("accel");
        this.log = log;
    }

    /**
     * Lists the NPUs.
     *
     * @return the NPUs by accelerator index; empty when there is no accel folder
     */
    List<HardwareDevice> discover() {
        SortedMap<Integer, Path> entries;
        try {
            entries = SysfsFiles.indexedEntries(accel, "accel");
        } catch (IOException | RuntimeException e) {
            log.warn("cannot list {} ({}); no NPUs reported", accel, e.getMessage());
            return List.of();
        }
        List<HardwareDevice> npus = new ArrayList<>();
        entries.forEach((index, entry) -> {
            Path device = entry.resolve("device");
            if (!PciFunction.isPci(device)) {
                log.debug("skipping {}: not a PCI device (no {})", entry, device.resolve("vendor"));
                return;
            }
            try {
                PciFunction pci = PciFunction.read(device);
                Map<String, String> metadata = new TreeMap<>();
                metadata.put(ACCEL_IDX, Integer.toString(index));
                if (pci.busId() != null) {
                    metadata.put(HardwareDiscovery.PCI_BUS_ID, pci.busId());
                }
                npus.add(new HardwareDevice(HardwareDeviceType.NPU, pci.vendorId(), pci.deviceId(),
                        PciVendors.name(pci.vendorId()), metadata));
            } catch (IOException | RuntimeException e) {
                log.warn("skipping NPU {}: {}", entry, e.getMessage());
            }
        });
        return npus;
    }
}
