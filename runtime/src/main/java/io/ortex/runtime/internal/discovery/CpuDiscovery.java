package io.ortex.runtime.internal.discovery;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Describes the machine's CPU from {@code cpuinfo}: the vendor from {@code vendor_id} (x86) or
 * {@code CPU implementer} (ARM), the model from {@code model name}. There is always exactly one CPU device: when
 * the file cannot be read it is reported with an empty vendor and a warning is logged.
 */
final class CpuDiscovery {
    /** Metadata key of the CPU's model name. */
    static final String MODEL = "model";

    /** ARM's implementer codes (the top byte of MIDR_EL1) with the vendor each stands for. */
    private static final Map<Integer, String> ARM_IMPLEMENTERS = Map.ofEntries(
            Map.entry(0x41, "ARM"),
            Map.entry(0x42, "Broadcom"),
            Map.entry(0x43, "Cavium"),
            Map.entry(0x46, "Fujitsu"),
            Map.entry(0x48, "HiSilicon"),
            Map.entry(0x4e, "NVIDIA"),
            Map.entry(0x50, "Applied Micro"),
            Map.entry(0x51, "Qualcomm"),
            Map.entry(0x53, "Samsung"),
            Map.entry(0x56, "Marvell"),
            Map.entry(0x61, "Apple"),
            Map.entry(0x69, "Intel"),
            Map.entry(0x6d, "Microsoft"),
            Map.entry(0x70, "Phytium"),
            Map.entry(0xc0, "Ampere"));

    private final Path cpuinfo;
    private final Logger log;

    /**
     * Creates the discovery.
     *
     * @param procRoot the procfs root, normally {@code /proc}
     * @param log where an unreadable {@code cpuinfo} is reported
     */
    CpuDiscovery(Path procRoot, Logger log) {
        this.cpuinfo = procRoot.resolve("cpuinfo");
        this.log = log;
    }

    /**
     * Describes the CPU.
     *
     * @return the CPU device; never {@code null}
     */
    HardwareDevice discover() {
        List<String> lines;
        try {
            lines = Files.readAllLines(cpuinfo);
        } catch (IOException | UncheckedIOException e) {
            log.warn("cannot read {} ({}); reporting a CPU of unknown vendor", cpuinfo, e.getMessage());
            return new HardwareDevice(HardwareDeviceType.CPU, 0, 0, "", Map.of());
        }
        Map<String, String> fields = firstValues(lines);
        String vendor = fields.getOrDefault("vendor_id", "");
        if (vendor.isEmpty()) {
            vendor = armVendor(fields.getOrDefault("CPU implementer", ""));
        }
        String model = fields.getOrDefault("model name", "");
        Map<String, String> metadata = model.isEmpty() ? Map.of() : Map.of(MODEL, model);
        return new HardwareDevice(HardwareDeviceType.CPU, vendorId(vendor), 0, vendor, metadata);
    }

    /**
     * Gives the vendor id ONNX Runtime reports for a CPUID vendor string.
     *
     * @param vendor the vendor string, such as {@code GenuineIntel}
     * @return 0x8086 for Intel, 0x1022 for AMD, 0 otherwise
     */
    static int vendorId(String vendor) {
        switch (vendor) {
            case "GenuineIntel":
                return 0x8086;
            case "AuthenticAMD":
                return 0x1022;
            default:
                return 0;
        }
    }

    /**
     * Names the vendor behind an ARM {@code CPU implementer} value.
     *
     * @param implementer the value, such as {@code 0x41}
     * @return the vendor's name; the value itself when it is not a known code; empty when it is empty
     */
    static String armVendor(String implementer) {
        String hex = implementer.startsWith("0x") || implementer.startsWith("0X") ? implementer.substring(2)
                : implementer;
        try {
            String name = ARM_IMPLEMENTERS.get(Integer.parseInt(hex, 16));
            return name != null ? name : implementer;
        } catch (NumberFormatException e) {
            return implementer;
        }
    }

    /** Keeps the first value of each {@code key : value} line; the processors' blocks repeat the same keys. */
    private static Map<String, String> firstValues(List<String> lines) {
        Map<String, String> fields = new HashMap<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                String value = line.substring(colon + 1).trim();
                if (!value.isEmpty()) {
                    fields.putIfAbsent(line.substring(0, colon).trim(), value);
                }
            }
        }
        return fields;
    }
}
