package io.ortex.runtime.internal.discovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds a fake sysfs and procfs tree with real files and links laid out as Linux lays them out: PCI functions
 * under {@code devices/pci0000:00/}, {@code class/drm/cardN/device} and {@code class/accel/accelN/device} linking
 * to them, and {@code bus/pci/devices/<bus id>} linking to them.
 */
final class FakeSysfs {
    final Path sys;
    final Path proc;

    FakeSysfs(Path root) throws IOException {
        this.sys = Files.createDirectories(root.resolve("sys"));
        this.proc = Files.createDirectories(root.resolve("proc"));
    }

    /** Creates {@code devices/pci0000:00/<busId>} with its vendor, device and (when not null) class files. */
    Path pciFunction(String busId, String vendor, String device, String pciClass) throws IOException {
        Path dir = Files.createDirectories(sys.resolve("devices/pci0000:00").resolve(busId));
        write(dir.resolve("vendor"), vendor);
        write(dir.resolve("device"), device);
        write(dir.resolve("class"), pciClass);
        Path bus = Files.createDirectories(sys.resolve("bus/pci/devices"));
        Files.createSymbolicLink(bus.resolve(busId), Path.of("../../../devices/pci0000:00", busId));
        return dir;
    }

    /** Creates {@code class/drm/<name>} with a {@code device} link to the PCI function {@code busId}. */
    Path drmCard(String name, String busId) throws IOException {
        return classEntry("drm", name, busId);
    }

    /** Creates {@code class/accel/<name>} with a {@code device} link to the PCI function {@code busId}. */
    Path accel(String name, String busId) throws IOException {
        return classEntry("accel", name, busId);
    }

    /** Writes {@code proc/cpuinfo}. */
    void cpuinfo(String... lines) throws IOException {
        Files.writeString(proc.resolve("cpuinfo"), String.join("\n", lines) + "\n");
    }

    private Path classEntry(String subsystem, String name, String busId) throws IOException {
        Path dir = Files.createDirectories(sys.resolve("class").resolve(subsystem).resolve(name));
        Files.createSymbolicLink(dir.resolve("device"), Path.of("../../../devices/pci0000:00", busId));
        return dir;
    }

    private static void write(Path file, String text) throws IOException {
        if (text != null) {
            Files.writeString(file, text + "\n");
        }
    }
}
