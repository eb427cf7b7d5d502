package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HardwareDiscoveryTest {
    @Test
    void readsVendorAndModelFromCpuinfo(@TempDir Path proc) throws Exception {
        Files.writeString(proc.resolve("cpuinfo"), String.join("\n",
                "processor\t: 0", "vendor_id\t: AuthenticAMD", "model name\t: AMD EPYC 7B13", "",
                "processor\t: 1", "vendor_id\t: AuthenticAMD", "model name\t: AMD EPYC 7B13", ""));
        List<HardwareDevice> devices = new HardwareDiscovery(proc).discover();
        assertEquals(1, devices.size());
        HardwareDevice cpu = devices.get(0);
        assertEquals(HardwareDeviceType.CPU, cpu.type());
        assertEquals("AuthenticAMD", cpu.vendor());
        assertEquals(0x1022, cpu.vendorId());
        assertEquals("AMD EPYC 7B13", cpu.metadata().get("model"));
    }

    @Test
    void reportsACpuEvenWithoutCpuinfo(@TempDir Path proc) {
        HardwareDevice cpu = new HardwareDiscovery(proc).cpu();
        assertEquals(HardwareDeviceType.CPU, cpu.type());
        assertEquals(System.getProperty("os.arch"), cpu.vendor());
        assertEquals(0, cpu.vendorId());
        assertTrue(cpu.metadata().isEmpty());
    }

    @Test
    void mapsCpuidVendorsToPciIds() {
        assertEquals(0x8086, HardwareDiscovery.cpuVendorId("GenuineIntel"));
        assertEquals(0x1022, HardwareDiscovery.cpuVendorId("AuthenticAMD"));
        assertEquals(0, HardwareDiscovery.cpuVendorId("ARM"));
    }
}
