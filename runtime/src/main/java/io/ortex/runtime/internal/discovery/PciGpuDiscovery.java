package io.ortex.runtime.internal.discovery;

import io.ortex.api.HardwareDevice;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;

/**
 * Finds GPUs on the PCI bus, for machines where DRM shows none (no display driver loaded, some virtual GPUs): every
 * {@code <sys>/bus/pci/devices/*} whose {@code class} is a VGA controller ({@code 0x0300xx}) or a 3D controller
 * ({@code 0x0302xx}), in bus-id order. An entry without a {@code class} file is left out; one whose files cannot be
 * read is left out with a warning while the other entries are still reported.
 */
final class PciGpuDiscovery {
    /** PCI class and subclass of a VGA-compatible display controller. */
    private static final int VGA = 0x0300;
    /** PCI class and subclass of a 3D controller (compute GPUs without display). */
    private static final int DISPLAY_3D = 0x0302;

    private final Path devices;
    private final Logger log;

    /**
     * Creates the discovery.
     *
     * @param sysRoot the sysfs root, normally {@code /sys}
     * @param log where skipped entries are reported
     */
    PciGpuDiscovery(Path sysRoot, Logger log) {
        this.devices = sysRoot.resolve("bus").resolve("pci").resolve("devices");
        this.log = log;
    }

    /**
     * Lists the GPUs.
     *
     * @return the display controllers by entry name; empty when there is no PCI folder
     */
    List<HardwareDevice> discover() {
        SortedMap<String, Path> entries = new TreeMap<>();
        if (Files.isDirectory(devices)) {
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(devices)) {
                stream.forEach(p -> entries.put(p.getFileName().toString(), p));
            } catch (IOException | RuntimeException e) {
                log.warn("cannot list {} ({}); no PCI GPUs reported", devices, e.getMessage());
                return List.of();
            }
        }
        List<HardwareDevice> gpus = new ArrayList<>();
        for (Path entry : entries.values()) {
            Path classFile = entry.resolve("class");
            if (!Files.exists(classFile)) {
                continue;
            }
            try {
                int pciClass = SysfsFiles.readHex(classFile) >>> 8;
                if (pciClass == VGA || pciClass == DISPLAY_3D) {
                    gpus.add(DrmGpuDiscovery.gpu(PciFunction.read(entry), Map.of()));
                }
            } catch (IOException | RuntimeException e) {
                log.warn("skipping PCI device {}: {}", entry, e.getMessage());
            }
        }
        return gpus;
    }
}
