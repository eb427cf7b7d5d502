package io.ortex.runtime.internal.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.io.IOException;
import org.slf4j.event.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccelNpuDiscoveryTest {
    static final HardwareDevice INTEL_NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x8086, 0x7d1d, "Intel",
            Map.of("accel_idx", "0", "pci_bus_id", "0000:00:0b.0"));

    final RecordingLogger log = new RecordingLogger();

    @Test
    void findsAccelNWithIndexAndBusId(@TempDir Path root) throws IOException {
        FakeSysfs fs = new FakeSysfs(root);
        fs.pciFunction("0000:00:0b.0", "0x8086", "0x7d1d", "0x120000");
        fs.pciFunction("0000:c1:00.0", "0x1e2d", "0x0001", "0x120000");
        fs.accel("accel0", "0000:00:0b.0");
        fs.accel("accel2", "0000:c1:00.0");
        fs.accel("accelabc", "0000:00:0b.0");
        Files.createDirectories(fs.sys.resolve("class/accel/accel5"));
        assertEquals(List.of(INTEL_NPU, new HardwareDevice(HardwareDeviceType.NPU, 0x1e2d, 0x0001, "",
                Map.of("accel_idx", "2", "pci_bus_id", "0000:c1:00.0"))), new AccelNpuDiscovery(fs.sys, log)
                        .discover());
        assertTrue(log.at(Level.WARN).isEmpty(), log.entries.toString());
    }

    @Test
    void unreadableAcceleratorIsSkippedAndTheOthersStay(@TempDir Path root) throws IOException {
        FakeSysfs fs = new FakeSysfs(root);
        fs.pciFunction("0000:00:0b.0", "0x8086", "0x7d1d", "0x120000");
        fs.pciFunction("0000:c1:00.0", "0x1e2d", "", "0x120000");
        fs.accel("accel0", "0000:00:0b.0");
        Path bad = fs.accel("accel1", "0000:c1:00.0");
        assertEquals(List.of(INTEL_NPU), new AccelNpuDiscovery(fs.sys, log).discover());
        assertEquals(1, log.at(Level.WARN).size(), log.entries.toString());
        assertTrue(log.at(Level.WARN).get(0).contains(bad.toString()));
    }

    @Test
    void noAccelFolderMeansNoNpus(@TempDir Path root) {
        assertEquals(List.of(), new AccelNpuDiscovery(root, log).discover());
    }
}
