package io.ortex.runtime.internal;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finds the machine's hardware devices. The CPU comes from {@code /proc/cpuinfo} (vendor string and model name);
 * when that file cannot be read the CPU is still reported, with the JVM's architecture as its vendor.
 */
final class HardwareDiscovery {
    private final Path procRoot;

    HardwareDiscovery(Path procRoot) {
        this.procRoot = procRoot;
    }

    List<HardwareDevice> discover() {
        List<HardwareDevice> devices = new ArrayList<>();
        devices.add(cpu());
        return devices;
    }

    HardwareDevice cpu() {
        String vendor = System.getProperty("os.arch");
        String model = "";
        try {
            for (String line : Files.readAllLines(procRoot.resolve("cpuinfo"))) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String key = line.substring(0, colon).trim();
                String value = line.substring(colon + 1).trim();
                if (key.equals("vendor_id") && !value.isEmpty()) {
                    vendor = value;
                } else if (key.equals("model name") && model.isEmpty()) {
                    model = value;
                }
            }
        } catch (IOException | RuntimeException e) {
            // keep the defaults: a machine always has a CPU
        }
        Map<String, String> metadata = model.isEmpty() ? Map.of() : Map.of("model", model);
        return new HardwareDevice(HardwareDeviceType.CPU, cpuVendorId(vendor), 0, vendor, metadata);
    }

    /** The PCI vendor id ONNX Runtime reports for a CPUID vendor string. */
    static int cpuVendorId(String vendor) {
        switch (vendor) {
            case "GenuineIntel": return 0x8086;
            case "AuthenticAMD": return 0x1022;
            default: return 0;
        }
    }
}
