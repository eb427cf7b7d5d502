package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.SupportedDevice;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The factory: identity, the virtual device, EP creation and options. */
class ExampleEpFactoryTest {
    private static final HardwareDevice CPU = new HardwareDevice(HardwareDeviceType.CPU, 0x8086, 0, "Intel",
            Map.of());
    private static final HardwareDevice REAL_NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x8086, 0x7d1d,
            "Intel", Map.of());

    private final ExampleEpFactory factory = new ExampleEpFactory();

    @Test
    void identity() {
        assertEquals("ExampleExecutionProvider", factory.name());
        assertEquals("Ortex Examples", factory.vendor());
        assertEquals(0x4F58, factory.vendorId());
        assertTrue(factory.version().matches("\\d+\\.\\d+\\.\\d+"), factory.version());
    }

    @Test
    void offersNothingUnlessVirtualDevicesAreAllowed() {
        assertEquals(List.of(), factory.supportedDevices(List.of(CPU, REAL_NPU), Map.of()));
        assertEquals(List.of(), factory.supportedDevices(List.of(CPU, REAL_NPU),
                Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "0")));
        assertEquals(List.of(), factory.supportedDevices(List.of(CPU), Map.of(Environment.ALLOW_VIRTUAL_DEVICES,
                "true")));
    }

    @Test
    void offersItsOwnVirtualNpuWhenAllowed() {
        List<SupportedDevice> devices = factory.supportedDevices(List.of(CPU, REAL_NPU),
                Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        assertEquals(1, devices.size());
        SupportedDevice d = devices.get(0);
        HardwareDevice hw = d.device();
        assertEquals(HardwareDeviceType.NPU, hw.type());
        assertEquals("Ortex Examples", hw.vendor());
        assertEquals(0x4F58, hw.vendorId());
        assertEquals(0, hw.deviceId());
        assertTrue(hw.isVirtual());
        assertEquals(Map.of("is_virtual", "1"), hw.metadata());
        assertEquals("MatMul,Gemm,Add,Mul,Relu,Conv", d.epMetadata().get("supported_ops"));
        assertFalse(d.epMetadata().containsKey("version"), "the runtime adds version");
        assertEquals(Map.of("fuse", "1", "layout", "NHWC"), d.epOptions());
        // the same device on every call, without any hardware at all
        assertEquals(devices, factory.supportedDevices(List.of(), Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1")));
    }

    @Test
    void createsEpsForItsDeviceWithTheFuseOption() {
        SupportedDevice npu = factory.supportedDevices(List.of(), Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"))
                .get(0);
        ExampleExecutionProvider ep = assertInstanceOf(ExampleExecutionProvider.class,
                factory.createEp(List.of(npu), Map.of()));
        assertEquals("ExampleExecutionProvider", ep.name());
        assertTrue(ep.fuseRelu());
        ExampleExecutionProvider off = (ExampleExecutionProvider) factory.createEp(List.of(npu),
                Map.of("ep.exampleexecutionprovider.fuse", "0"));
        assertFalse(off.fuseRelu());
        SupportedDevice defaultOff = new SupportedDevice(npu.device(), npu.epMetadata(), Map.of("fuse", "0"));
        assertFalse(((ExampleExecutionProvider) factory.createEp(List.of(defaultOff), Map.of())).fuseRelu());
        factory.releaseEp(ep);
        factory.releaseEp(off);
    }

    @Test
    void rejectsForeignDevicesAndBadOptions() {
        SupportedDevice npu = factory.supportedDevices(List.of(), Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"))
                .get(0);
        assertThrows(InvalidArgumentException.class, () -> factory.createEp(List.of(), Map.of()));
        assertThrows(InvalidArgumentException.class, () -> factory.createEp(List.of(SupportedDevice.of(CPU)),
                Map.of()));
        assertThrows(InvalidArgumentException.class, () -> factory.createEp(List.of(SupportedDevice.of(REAL_NPU)),
                Map.of()));
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> factory.createEp(
                List.of(npu), Map.of("ep.exampleexecutionprovider.fuse", "yes")));
        assertTrue(e.getMessage().contains("fuse"), e.getMessage());
    }

    @Test
    void isFoundByServiceLoader() {
        boolean found = false;
        for (EpFactory f : ServiceLoader.load(EpFactory.class)) {
            found |= f instanceof ExampleEpFactory;
        }
        assertTrue(found, "META-INF/services lists the factory");
    }
}
