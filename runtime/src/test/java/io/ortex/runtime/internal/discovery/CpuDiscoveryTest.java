package io.ortex.runtime.internal.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.io.IOException;
import org.slf4j.event.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuDiscoveryTest {
    private final RecordingLogger log = new RecordingLogger();

    @Test
    void intel(@TempDir Path proc) throws IOException {
        Files.writeString(proc.resolve("cpuinfo"), String.join("\n",
                "processor\t: 0", "vendor_id\t: GenuineIntel", "cpu family\t: 6",
                "model name\t: Intel(R) Xeon(R) Platinum 8480+", "", "processor\t: 1", "vendor_id\t: GenuineIntel",
                "model name\t: Intel(R) Xeon(R) Platinum 8480+", ""));
        assertEquals(new HardwareDevice(HardwareDeviceType.CPU, 0x8086, 0, "GenuineIntel",
                Map.of("model", "Intel(R) Xeon(R) Platinum 8480+")), new CpuDiscovery(proc, log).discover());
        assertTrue(log.entries.isEmpty(), log.entries.toString());
    }

    @Test
    void amd(@TempDir Path proc) throws IOException {
        Files.writeString(proc.resolve("cpuinfo"), "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                + "model\t\t: 17\nmodel name\t: AMD EPYC 7B13\n");
        assertEquals(new HardwareDevice(HardwareDeviceType.CPU, 0x1022, 0, "AuthenticAMD",
                Map.of("model", "AMD EPYC 7B13")), new CpuDiscovery(proc, log).discover());
    }

    @Test
    void armImplementerIsMappedToAVendorName(@TempDir Path proc) throws IOException {
        Files.writeString(proc.resolve("cpuinfo"), String.join("\n",
                "processor\t: 0", "BogoMIPS\t: 50.00", "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32",
                "CPU implementer\t: 0x41", "CPU architecture: 8", "CPU variant\t: 0x3", "CPU part\t: 0xd0c", ""));
        assertEquals(new HardwareDevice(HardwareDeviceType.CPU, 0, 0, "ARM", Map.of()),
                new CpuDiscovery(proc, log).discover());
    }

    @Test
    void armVendors() {
        assertEquals("Ampere", CpuDiscovery.armVendor("0xc0"));
        assertEquals("NVIDIA", CpuDiscovery.armVendor("0x4e"));
        assertEquals("Qualcomm", CpuDiscovery.armVendor("0x51"));
        assertEquals("0x99", CpuDiscovery.armVendor("0x99"));
        assertEquals("odd", CpuDiscovery.armVendor("odd"));
        assertEquals("", CpuDiscovery.armVendor(""));
    }

    @Test
    void vendorIdsAreCpuidVendors() {
        assertEquals(0x8086, CpuDiscovery.vendorId("GenuineIntel"));
        assertEquals(0x1022, CpuDiscovery.vendorId("AuthenticAMD"));
        assertEquals(0, CpuDiscovery.vendorId("ARM"));
        assertEquals(0, CpuDiscovery.vendorId(""));
    }

    @Test
    void missingCpuinfoStillGivesOneCpuAndAWarning(@TempDir Path proc) {
        HardwareDevice cpu = new CpuDiscovery(proc, log).discover();
        assertEquals(new HardwareDevice(HardwareDeviceType.CPU, 0, 0, "", Map.of()), cpu);
        assertEquals(1, log.at(Level.WARN).size());
        assertTrue(log.at(Level.WARN).get(0).contains(proc.resolve("cpuinfo").toString()), log.entries.toString());
    }

    @Test
    void cpuinfoWithoutKnownKeysGivesAnUnknownCpu(@TempDir Path proc) throws IOException {
        Files.writeString(proc.resolve("cpuinfo"), "processor : 0\nnonsense without colon\nvendor_id :\n");
        assertEquals(new HardwareDevice(HardwareDeviceType.CPU, 0, 0, "", Map.of()),
                new CpuDiscovery(proc, log).discover());
    }
}
