package io.ortex.runtime.internal.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.runtime.internal.RuntimeEnvironmentFactory;
import java.io.IOException;
import org.slf4j.event.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HardwareDiscoveryTest {
    static final HardwareDevice CPU = new HardwareDevice(HardwareDeviceType.CPU, 0x8086, 0, "GenuineIntel",
            Map.of("model", "Intel(R) Core(TM) Ultra 7 155H"));

    @TempDir
    Path root;
    FakeSysfs fs;
    final RecordingLogger log = new RecordingLogger();

    @BeforeEach
    void laptopWithNpuAndTwoGpus() throws IOException {
        fs = new FakeSysfs(root);
        fs.cpuinfo("processor\t: 0", "vendor_id\t: GenuineIntel", "model name\t: Intel(R) Core(TM) Ultra 7 155H");
        fs.pciFunction("0000:00:02.0", "0x8086", "0xa7a0", "0x030000");
        fs.pciFunction("0000:65:00.0", "0x10de", "0x2330", "0x030200");
        fs.pciFunction("0000:00:0b.0", "0x8086", "0x7d1d", "0x120000");
        fs.drmCard("card0", "0000:00:02.0");
        fs.drmCard("card1", "0000:65:00.0");
        fs.drmCard("card0-HDMI-A-1", "0000:00:02.0");
        fs.drmCard("renderD128", "0000:00:02.0");
        fs.accel("accel0", "0000:00:0b.0");
        fs.accel("accelabc", "0000:00:0b.0");
    }

    Map<String, String> roots() {
        return Map.of(DiscoveryConfig.SYSFS_ROOT, fs.sys.toString(), DiscoveryConfig.PROCFS_ROOT, fs.proc.toString());
    }

    List<HardwareDevice> discover(Map<String, String> config) {
        return new HardwareDiscovery(config, log).discover();
    }

    @Test
    void ordersNpusThenGpusThenTheCpu() {
        assertEquals(List.of(AccelNpuDiscoveryTest.INTEL_NPU, DrmGpuDiscoveryTest.INTEL_IGPU, DrmGpuDiscoveryTest.H100,
                CPU), discover(roots()));
        assertTrue(log.entries.isEmpty(), log.entries.toString());
    }

    @Test
    void pciFallbackOnlyWhenDrmFindsNoGpu(@TempDir Path other) throws IOException {
        FakeSysfs headless = new FakeSysfs(other);
        headless.pciFunction("0000:65:00.0", "0x10de", "0x2330", "0x030200");
        headless.pciFunction("0000:66:00.0", "0x15b3", "0x101d", "0x020000");
        Path platform = headless.sys.resolve("devices/platform/simple-framebuffer.0");
        Files.createDirectories(platform);
        Path card = Files.createDirectories(headless.sys.resolve("class/drm/card0"));
        Files.createSymbolicLink(card.resolve("device"), card.relativize(platform));
        List<HardwareDevice> devices = discover(Map.of(DiscoveryConfig.SYSFS_ROOT, headless.sys.toString(),
                DiscoveryConfig.PROCFS_ROOT, fs.proc.toString()));
        assertEquals(List.of(new HardwareDevice(HardwareDeviceType.GPU, 0x10de, 0x2330, "NVIDIA",
                Map.of("pci_bus_id", "0000:65:00.0", "Discrete", "1")), CPU), devices);

        // with DRM cards present, the PCI bus is not read: the 3D controller would otherwise appear twice
        assertEquals(2, discover(roots()).stream().filter(d -> d.type() == HardwareDeviceType.GPU).count());
    }

    @Test
    void oneBrokenDeviceDoesNotHideTheOthers() throws IOException {
        fs.pciFunction("0000:b3:00.0", "0xzzzz", "0x1234", "0x030000");
        fs.drmCard("card2", "0000:b3:00.0");
        fs.pciFunction("0000:c1:00.0", "0x8086", "oops", "0x120000");
        fs.accel("accel1", "0000:c1:00.0");
        assertEquals(List.of(AccelNpuDiscoveryTest.INTEL_NPU, DrmGpuDiscoveryTest.INTEL_IGPU, DrmGpuDiscoveryTest.H100,
                CPU), discover(roots()));
        List<String> warnings = log.at(Level.WARN);
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains(fs.sys.resolve("class/accel/accel1").toString()), warnings.get(0));
        assertTrue(warnings.get(1).contains(fs.sys.resolve("class/drm/card2").toString()), warnings.get(1));
    }

    @Test
    void configuredDevicesJoinTheirTypeAndAreLogged() {
        Map<String, String> config = new HashMap<>(roots());
        config.put("ortex.device.z.type", "NPU");
        config.put("ortex.device.z.vendor", "Acme");
        config.put("ortex.device.z.vendor_id", "0x1234");
        config.put("ortex.device.z.device_id", "0x5678");
        config.put("ortex.device.z.metadata.pci_bus_id", "0000:3b:00.0");
        config.put("ortex.device.a.type", "CPU");
        config.put("ortex.device.dup.type", "CPU");
        config.put("ortex.device.dup.vendor", "GenuineIntel");
        config.put("ortex.device.dup.vendor_id", "0x8086");
        config.put("ortex.device.dup.metadata.model", "Intel(R) Core(TM) Ultra 7 155H");
        HardwareDevice acme = new HardwareDevice(HardwareDeviceType.NPU, 0x1234, 0x5678, "Acme",
                Map.of("pci_bus_id", "0000:3b:00.0"));
        HardwareDevice plainCpu = new HardwareDevice(HardwareDeviceType.CPU, 0, 0, "", Map.of());
        assertEquals(List.of(AccelNpuDiscoveryTest.INTEL_NPU, acme, DrmGpuDiscoveryTest.INTEL_IGPU,
                DrmGpuDiscoveryTest.H100, CPU, plainCpu), discover(config));
        List<String> infos = log.at(Level.INFO);
        assertEquals(3, infos.size(), infos.toString());
        assertTrue(infos.get(0).contains("'a'"), infos.get(0));
        assertTrue(infos.get(2).contains("'z'") && infos.get(2).contains("Acme"), infos.get(2));
    }

    @Test
    void badConfiguredDeviceFailsDiscovery() {
        Map<String, String> config = new HashMap<>(roots());
        config.put("ortex.device.x.type", "FPGA");
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> discover(config));
        assertTrue(e.getMessage().contains("ortex.device.x.type"), e.getMessage());
    }

    @Test
    void blankRootIsRejected() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> discover(Map.of(DiscoveryConfig.SYSFS_ROOT, " ")));
        assertTrue(e.getMessage().contains(DiscoveryConfig.SYSFS_ROOT), e.getMessage());
    }

    @Test
    void emptyTreesStillGiveExactlyOneCpu(@TempDir Path empty) {
        List<HardwareDevice> devices = discover(Map.of(DiscoveryConfig.SYSFS_ROOT, empty.toString(),
                DiscoveryConfig.PROCFS_ROOT, empty.toString()));
        assertEquals(List.of(new HardwareDevice(HardwareDeviceType.CPU, 0, 0, "", Map.of())), devices);
        assertEquals(1, log.at(Level.WARN).size());
    }

    @Test
    void realMachineHasExactlyOneCpu() {
        List<HardwareDevice> devices = new HardwareDiscovery(Map.of()).discover();
        assertEquals(1, devices.stream().filter(d -> d.type() == HardwareDeviceType.CPU).count(), devices.toString());
        assertEquals(HardwareDeviceType.CPU, devices.get(devices.size() - 1).type());
    }

    @Test
    void environmentReportsTheDiscoveredDevices() {
        Map<String, String> config = new HashMap<>(roots());
        config.put("ortex.device.extra.type", "GPU");
        config.put("ortex.device.extra.vendor", "Acme");
        try (Environment env = Environment.create(config)) {
            assertEquals(List.of(AccelNpuDiscoveryTest.INTEL_NPU, DrmGpuDiscoveryTest.INTEL_IGPU,
                    DrmGpuDiscoveryTest.H100, new HardwareDevice(HardwareDeviceType.GPU, 0, 0, "Acme", Map.of()), CPU),
                    env.hardwareDevices());
        }
    }

    @Test
    void environmentCreationFailsOnABadDeviceEntry() {
        Map<String, String> config = new HashMap<>(roots());
        config.put("ortex.device.gpu0.type", "GPU");
        config.put("ortex.device.gpu0.vendor_id", "NVIDIA");
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> new RuntimeEnvironmentFactory().create(config).close());
        assertTrue(e.getMessage().contains("ortex.device.gpu0.vendor_id"), e.getMessage());
    }
}
