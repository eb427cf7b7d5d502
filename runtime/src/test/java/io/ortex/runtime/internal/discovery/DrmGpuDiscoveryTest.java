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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DrmGpuDiscoveryTest {
    static final HardwareDevice H100 = new HardwareDevice(HardwareDeviceType.GPU, 0x10de, 0x2330, "NVIDIA",
            Map.of("card_idx", "1", "Discrete", "1", "pci_bus_id", "0000:65:00.0"));
    static final HardwareDevice INTEL_IGPU = new HardwareDevice(HardwareDeviceType.GPU, 0x8086, 0xa7a0, "Intel",
            Map.of("card_idx", "0", "pci_bus_id", "0000:00:02.0"));

    @TempDir
    Path root;
    FakeSysfs fs;
    final RecordingLogger log = new RecordingLogger();

    @BeforeEach
    void nvidiaAndIntel() throws IOException {
        fs = new FakeSysfs(root);
        fs.pciFunction("0000:00:02.0", "0x8086", "0xa7a0", "0x030000");
        fs.pciFunction("0000:65:00.0", "0x10de", "0x2330", "0x030200");
        fs.drmCard("card0", "0000:00:02.0");
        fs.drmCard("card1", "0000:65:00.0");
        fs.drmCard("card0-HDMI-A-1", "0000:00:02.0");
        fs.drmCard("renderD128", "0000:00:02.0");
        fs.drmCard("renderD129", "0000:65:00.0");
        Files.writeString(fs.sys.resolve("class/drm/version"), "drm 1.1.0 20060810\n");
    }

    List<HardwareDevice> discover() {
        return new DrmGpuDiscovery(fs.sys, log).discover();
    }

    @Test
    void findsDiscreteNvidiaAndIntegratedIntelInCardOrder() {
        assertEquals(List.of(INTEL_IGPU, H100), discover());
        assertTrue(log.at(Level.WARN).isEmpty(), log.entries.toString());
    }

    @Test
    void cardWithGarbageVendorIsSkippedAndTheOthersStay() throws IOException {
        fs.pciFunction("0000:b3:00.0", "not a number", "0x1234", "0x030000");
        Path card = fs.drmCard("card2", "0000:b3:00.0");
        assertEquals(List.of(INTEL_IGPU, H100), discover());
        List<String> warnings = log.at(Level.WARN);
        assertEquals(1, warnings.size(), log.entries.toString());
        assertTrue(warnings.get(0).contains(card.toString()), warnings.get(0));
        assertTrue(warnings.get(0).contains("not a number"), warnings.get(0));
    }

    @Test
    void cardWithUnreadableFilesIsSkippedAndTheOthersStay() throws IOException {
        Path function = fs.pciFunction("0000:17:00.0", "0x1002", null, "0x030000");
        Files.createDirectory(function.resolve("device"));
        Path card = fs.drmCard("card3", "0000:17:00.0");
        assertEquals(List.of(INTEL_IGPU, H100), discover());
        List<String> warnings = log.at(Level.WARN);
        assertEquals(1, warnings.size(), log.entries.toString());
        assertTrue(warnings.get(0).contains(card.toString()), warnings.get(0));
    }

    @Test
    void nonPciCardIsSkippedWithoutWarning() throws IOException {
        Path platform = Files.createDirectories(fs.sys.resolve("devices/platform/simple-framebuffer.0"));
        Path card = Files.createDirectories(fs.sys.resolve("class/drm/card2"));
        Files.createSymbolicLink(card.resolve("device"), card.relativize(platform));
        Files.createDirectories(fs.sys.resolve("class/drm/card4"));
        assertEquals(List.of(INTEL_IGPU, H100), discover());
        assertTrue(log.at(Level.WARN).isEmpty(), log.entries.toString());
    }

    @Test
    void cardOutsideAPciAddressHasNoBusId() throws IOException {
        Path function = Files.createDirectories(fs.sys.resolve("devices/virtual/gpu0"));
        Files.writeString(function.resolve("vendor"), "0x1414\n");
        Files.writeString(function.resolve("device"), "0x008e\n");
        Path card = Files.createDirectories(fs.sys.resolve("class/drm/card7"));
        Files.createSymbolicLink(card.resolve("device"), card.relativize(function));
        assertEquals(new HardwareDevice(HardwareDeviceType.GPU, 0x1414, 0x008e, "Microsoft",
                Map.of("card_idx", "7")), discover().get(2));
    }

    @Test
    void noDrmFolderMeansNoGpus(@TempDir Path empty) {
        assertEquals(List.of(), new DrmGpuDiscovery(empty, log).discover());
        assertTrue(log.entries.isEmpty());
    }
}
