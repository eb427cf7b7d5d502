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
 * Finds GPUs through the DRM subsystem: every {@code <sys>/class/drm/cardN} whose {@code device} is a PCI function,
 * in card order. Connectors ({@code card0-HDMI-A-1}) and render nodes ({@code renderD128}) are not cards; a card
 * without {@code device/vendor} (a platform-bus display such as simple-framebuffer) is left out; a card whose files
 * cannot be read is left out with a warning while the other cards are still reported.
 */
final class DrmGpuDiscovery {
    /** Metadata key of the DRM card index {@code N} of {@code cardN}. */
    static final String CARD_IDX = "card_idx";

    private final Path drm;
    private final Logger log;

    /**
     * Creates the discovery.
     *
     * @param sysRoot the sysfs root, normally {@code /sys}
     * @param log where skipped cards are reported
     */
    DrmGpuDiscovery(Path sysRoot, Logger log) {
        this.drm = sysRoot.resolve("class").resolve("drm");
        this.log = log;
    }

    /**
     * Lists the GPUs.
     *
     * @return the GPUs by card index; empty when there is no DRM folder
     */
    List<HardwareDevice> discover() {
        SortedMap<Integer, Path> cards;
        try {
            cards = SysfsFiles.indexedEntries(drm, "card");
        } catch (IOException | RuntimeException e) {
            log.warn("cannot list {} ({}); no DRM GPUs reported", drm, e.getMessage());
            return List.of();
        }
        List<HardwareDevice> gpus = new ArrayList<>();
        cards.forEach((index, card) -> {
            Path device = card.resolve("device");
            if (!PciFunction.isPci(device)) {
                log.debug("skipping {}: not a PCI device (no {})", card, device.resolve("vendor"));
                return;
            }
            try {
                gpus.add(gpu(PciFunction.read(device), Map.of(CARD_IDX, Integer.toString(index))));
            } catch (IOException | RuntimeException e) {
                log.warn("skipping GPU {}: {}", card, e.getMessage());
            }
        });
        return gpus;
    }

    /**
     * Builds a GPU device: the vendor name from the PCI table, {@code Discrete=1} for NVIDIA and the bus id when
     * known.
     *
     * @param pci the PCI function
     * @param extra metadata to add, such as {@code card_idx}
     * @return the device
     */
    static HardwareDevice gpu(PciFunction pci, Map<String, String> extra) {
        Map<String, String> metadata = new TreeMap<>(extra);
        if (pci.vendorId() == PciVendors.NVIDIA) {
            metadata.put(HardwareDiscovery.DISCRETE, "1");
        }
        if (pci.busId() != null) {
            metadata.put(HardwareDiscovery.PCI_BUS_ID, pci.busId());
        }
        return new HardwareDevice(HardwareDeviceType.GPU, pci.vendorId(), pci.deviceId(),
                PciVendors.name(pci.vendorId()), metadata);
    }
}
