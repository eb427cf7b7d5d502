package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.spi.SupportedDevice;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An EP library never hides without a reason: each of its EPs that offers no device says why (its virtual devices
 * are not granted, the hardware found has nothing it supports, its factory failed), and the reason goes when devices
 * come.
 */
class NoDeviceReasonTest {
    private static final HardwareDevice VIRTUAL_NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x4F58, 0, "tests",
            Map.of("is_virtual", "1"));

    /** A factory whose only device is a virtual NPU, offered when virtual devices are allowed. */
    private static CountingEpFactory virtualNpu() {
        return new CountingEpFactory("VirtualNpuEP", () -> null) {
            @Override
            public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
                return "1".equals(config.get(Environment.ALLOW_VIRTUAL_DEVICES))
                        ? List.of(new SupportedDevice(VIRTUAL_NPU, Map.of(), Map.of())) : List.of();
            }
        };
    }

    private static EpLibraryInfo library(RuntimeEnvironment env, String name) {
        return env.epLibraries().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aVirtualDeviceThatIsNotGrantedIsTheReasonUntilTheGrantComes() {
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU))) {
            env.registerFactories("npu.bundle", List.of(virtualNpu()), false);
            EpLibraryInfo lib = library(env, "npu.bundle");
            assertEquals(EpLibraryInfo.State.ACTIVE, lib.state());
            assertEquals(List.of(), lib.devices());
            assertEquals(Map.of("VirtualNpuEP", FactoryDevices.NOT_GRANTED), lib.withoutDevice());

            env.regrantVirtualDevices("npu.bundle", true);
            lib = library(env, "npu.bundle");
            assertEquals(1, lib.devices().size());
            assertEquals(Map.of(), lib.withoutDevice());
        }
    }

    @Test
    void hardwareTheFactoryDoesNotSupportIsTheReason() {
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU))) {
            env.registerFactories("gpu.bundle", List.of(new CountingEpFactory("GpuEP", () -> null)
                    .onlyType(HardwareDeviceType.GPU)), false);
            String why = library(env, "gpu.bundle").withoutDevice().get("GpuEP");
            assertEquals("no supported hardware among the devices found [CPU GenuineIntel]", why);
        }
    }

    @Test
    void aFactoryThatFailsIsListedWithItsMessage() {
        CountingEpFactory failing = new CountingEpFactory("BrokenEP", () -> null) {
            @Override
            public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
                throw new IllegalStateException("no driver loaded");
            }
        };
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU))) {
            env.registerFactories("broken.bundle", List.of(failing), true);
            String why = library(env, "broken.bundle").withoutDevice().get("BrokenEP");
            assertTrue(why.startsWith("factory failed: ") && why.contains("no driver loaded"), why);
            assertTrue(env.epDevices().isEmpty());
        }
    }

    /** As ONNX Runtime's EP when its native library does not load on this platform: the environment still opens. */
    @Test
    void aFactoryWhoseVersionFailsIsListedWithItsMessageAndTheOthersServe() {
        CountingEpFactory failing = new CountingEpFactory("NativeEP", () -> null) {
            @Override
            public String version() {
                throw new EpUnavailableException("the native library could not be loaded");
            }
        };
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU),
                List.of(new CountingEpFactory("CpuLikeEP", () -> null), failing))) {
            EpLibraryInfo lib = env.epLibraries().stream()
                    .filter(l -> l.withoutDevice().containsKey("NativeEP")).findFirst().orElseThrow();
            String why = lib.withoutDevice().get("NativeEP");
            assertTrue(why.startsWith("factory failed: ") && why.contains("could not be loaded"), why);
            assertEquals(List.of("CpuLikeEP"), env.epDevices().stream().map(d -> d.epName()).toList());
        }
    }

    @Test
    void aLibraryWithDevicesAndOneWithoutListBoth() {
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU))) {
            env.registerFactories("mixed.bundle", List.of(new CountingEpFactory("CpuLikeEP", () -> null),
                    virtualNpu()), false);
            EpLibraryInfo lib = library(env, "mixed.bundle");
            assertEquals(1, lib.devices().size());
            assertEquals(Map.of("VirtualNpuEP", FactoryDevices.NOT_GRANTED), lib.withoutDevice());
        }
    }
}
