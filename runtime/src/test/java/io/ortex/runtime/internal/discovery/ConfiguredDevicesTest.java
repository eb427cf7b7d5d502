package io.ortex.runtime.internal.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfiguredDevicesTest {
    @Test
    void buildsDevicesOrderedByIdWithMetadataAsConfigured() {
        Map<String, HardwareDevice> devices = ConfiguredDevices.parse(Map.of(
                "ortex.device.npu-1.type", "NPU",
                "ortex.device.npu-1.vendor", "Acme",
                "ortex.device.npu-1.vendor_id", "0x1234",
                "ortex.device.npu-1.device_id", "0x5678",
                "ortex.device.npu-1.metadata.pci_bus_id", "0000:3b:00.0",
                "ortex.device.npu-1.metadata.a.b", "",
                "ortex.device.A_gpu.type", "gpu",
                "ortex.device.A_gpu.device_id", "4096",
                "allow_virtual_devices", "1",
                "ortex.discovery.sysfs_root", "/nowhere"));
        assertEquals(List.of("A_gpu", "npu-1"), List.copyOf(devices.keySet()));
        assertEquals(new HardwareDevice(HardwareDeviceType.GPU, 0, 4096, "", Map.of()), devices.get("A_gpu"));
        assertEquals(new HardwareDevice(HardwareDeviceType.NPU, 0x1234, 0x5678, "Acme",
                Map.of("pci_bus_id", "0000:3b:00.0", "a.b", "")), devices.get("npu-1"));
    }

    @Test
    void acceptsTheFull32Bits() {
        HardwareDevice d = ConfiguredDevices.parse(Map.of("ortex.device.x.type", "CPU",
                "ortex.device.x.vendor_id", "0xFFFFFFFF", "ortex.device.x.device_id", "4294967295")).get("x");
        assertEquals(-1, d.vendorId());
        assertEquals(-1, d.deviceId());
    }

    @Test
    void noDeviceKeysNoDevices() {
        assertTrue(ConfiguredDevices.parse(Map.of("ortex.devices.x.type", "GPU", "other", "x")).isEmpty());
    }

    @Test
    void unknownTypeNamesTheKey() {
        assertRejected("ortex.device.d1.type", Map.of("ortex.device.d1.type", "TPU"));
        assertRejected("ortex.device.d1.type", Map.of("ortex.device.d1.type", ""));
    }

    @Test
    void missingTypeNamesTheKey() {
        assertRejected("ortex.device.d1.type", Map.of("ortex.device.d1.vendor", "Acme"));
    }

    @Test
    void badNumbersNameTheKey() {
        for (String bad : List.of("0x", "12ab", "0x123456789", "4294967296", "-1", "0x-1", "+7", "0x+7", "")) {
            assertRejected("ortex.device.d1.vendor_id", Map.of("ortex.device.d1.type", "GPU",
                    "ortex.device.d1.vendor_id", bad));
        }
        assertRejected("ortex.device.d1.device_id", Map.of("ortex.device.d1.type", "GPU",
                "ortex.device.d1.device_id", "zero"));
    }

    @Test
    void malformedKeysAreRejected() {
        assertRejected("ortex.device.d1.colour", Map.of("ortex.device.d1.type", "GPU", "ortex.device.d1.colour",
                "red"));
        assertRejected("ortex.device.d1.metadata.", Map.of("ortex.device.d1.type", "GPU",
                "ortex.device.d1.metadata.", "x"));
        assertRejected("ortex.device.d1", Map.of("ortex.device.d1", "GPU"));
        assertRejected("ortex.device.a b.type", Map.of("ortex.device.a b.type", "GPU"));
        assertRejected("ortex.device..type", Map.of("ortex.device..type", "GPU"));
    }

    private static void assertRejected(String key, Map<String, String> config) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> ConfiguredDevices.parse(config), config.toString());
        assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
    }
}
