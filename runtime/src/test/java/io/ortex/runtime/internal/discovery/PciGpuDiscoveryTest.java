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

class PciGpuDiscoveryTest {
    final RecordingLogger log = new RecordingLogger();

    @Test
    void keepsVgaAnd3dControllersOnly(@TempDir Path root) throws IOException {
        FakeSysfs fs = new FakeSysfs(root);
        fs.pciFunction("0000:00:00.0", "0x8086", "0x1237", "0x060000");
        fs.pciFunction("0000:00:02.0", "0x1234", "0x1111", "0x030000");
        fs.pciFunction("0000:00:04.0", "0x10de", "0x2330", "0x030200");
        fs.pciFunction("0000:00:05.0", "0x1af4", "0x1041", "0x020000");
        fs.pciFunction("0000:00:06.0", "0x10de", "0x22a3", "0x068000");
        fs.pciFunction("0000:00:07.0", "0x1002", "0x74a1", null);
        assertEquals(List.of(
                new HardwareDevice(HardwareDeviceType.GPU, 0x1234, 0x1111, "", Map.of("pci_bus_id", "0000:00:02.0")),
                new HardwareDevice(HardwareDeviceType.GPU, 0x10de, 0x2330, "NVIDIA",
                        Map.of("pci_bus_id", "0000:00:04.0", "Discrete", "1"))),
                new PciGpuDiscovery(fs.sys, log).discover());
        assertTrue(log.at(Level.WARN).isEmpty(), log.entries.toString());
    }

    @Test
    void unreadableEntryIsSkippedWithAWarningAndTheOthersStay(@TempDir Path root) throws IOException {
        FakeSysfs fs = new FakeSysfs(root);
        fs.pciFunction("0000:00:02.0", "0x1002", "0x744c", "0x030000");
        fs.pciFunction("0000:00:03.0", "0x1002", "garbage", "0x030000");
        Path badClass = fs.pciFunction("0000:00:04.0", "0x1002", "0x744c", "VGA");
        assertEquals(List.of(new HardwareDevice(HardwareDeviceType.GPU, 0x1002, 0x744c, "AMD",
                Map.of("pci_bus_id", "0000:00:02.0"))), new PciGpuDiscovery(fs.sys, log).discover());
        List<String> warnings = log.at(Level.WARN);
        assertEquals(2, warnings.size(), log.entries.toString());
        assertTrue(warnings.get(0).contains(fs.sys.resolve("bus/pci/devices/0000:00:03.0").toString()),
                warnings.get(0));
        assertTrue(warnings.get(1).contains("0000:00:04.0"), warnings.get(1));
        assertTrue(Files.exists(badClass));
    }

    @Test
    void noPciFolderMeansNoGpus(@TempDir Path root) {
        assertEquals(List.of(), new PciGpuDiscovery(root, log).discover());
    }
}
