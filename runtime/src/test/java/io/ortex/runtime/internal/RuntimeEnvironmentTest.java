package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeEnvironmentTest {

    @Test
    void createFindsTheRuntimeAndTheCpuEpOnTheClassPath() {
        try (Environment env = Environment.create(Map.of("some_key", "1"))) {
            assertInstanceOf(RuntimeEnvironment.class, env);
            assertEquals(Map.of("some_key", "1"), env.config());
            assertTrue(env.hardwareDevices().stream().anyMatch(d -> d.type() == HardwareDeviceType.CPU));
            List<EpDevice> cpu = env.epDevices().stream()
                    .filter(d -> d.epName().equals(RuntimeEnvironment.CPU_EP)).toList();
            assertEquals(1, cpu.size(), env.epDevices().toString());
            EpDevice d = cpu.get(0);
            assertEquals(CpuEpFactory.VERSION, d.version());
            assertEquals(CpuEpFactory.VERSION, d.epMetadata().get(EpDevice.VERSION));
            assertEquals(CpuEpFactory.VENDOR, d.epVendor());
            assertEquals(HardwareDeviceType.CPU, d.device().type());
        }
    }

    @Test
    void epDevicesCarryTheFactoryVersionAndAreUnmodifiable() {
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU),
                List.of(new CpuEpFactory(), new CountingEpFactory("FakeEP", () -> null)))) {
            assertEquals(List.of("CPUExecutionProvider", "FakeEP"),
                    env.epDevices().stream().map(EpDevice::epName).toList());
            assertEquals("1.2.3", env.epDevices().get(1).version());
            assertEquals(CPU, env.epDevices().get(0).device());
            assertThrows(UnsupportedOperationException.class, () -> env.epDevices().clear());
        }
    }

    @Test
    void refusesTwoFactoriesWithOneName() {
        OrtexException e = assertThrows(OrtexException.class, () -> new RuntimeEnvironment(Map.of(), List.of(CPU),
                List.of(new CpuEpFactory(), new CpuEpFactory())));
        assertTrue(e.getMessage().contains("CPUExecutionProvider"), e.getMessage());
    }

    @Test
    void aBuiltInFactoryWhoseVersionIsNotSemVerOffersNoDeviceAndSaysWhy() {
        CountingEpFactory bad = new CountingEpFactory("BadVersionEP", () -> null) {
            @Override
            public String version() {
                return "1.0";
            }
        };
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU), List.of(bad))) {
            assertTrue(env.epDevices().isEmpty());
            String why = env.epLibraries().get(0).withoutDevice().get("BadVersionEP");
            assertTrue(why.startsWith("factory failed: ") && why.contains("'1.0'") && why.contains("SemVer"), why);
        }
    }

    @Test
    void withoutTheCpuEpNoSessionCanBeCreated(@TempDir Path dir) throws Exception {
        Path model = TestModels.addMulRelu().write(dir, "m.onnx");
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU), List.of())) {
            OrtexException e = assertThrows(OrtexException.class,
                    () -> env.createSession(model, new SessionOptions()));
            assertTrue(e.getMessage().contains("CPUExecutionProvider"), e.getMessage());
        }
    }

    @Test
    void closingTheEnvironmentClosesItsSessionsAndRefusesNewOnes(@TempDir Path dir) throws Exception {
        byte[] model = TestModels.addMulRelu().bytes();
        CountingEpFactory cpu = new CountingEpFactory(new CpuEpFactory());
        RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU), List.of(cpu));
        Session a = env.createSession(model, new SessionOptions());
        Session b = env.createSession(TestModels.addMulRelu().write(dir, "m.onnx"), new SessionOptions());
        b.close();
        assertEquals(2, cpu.created.get());
        assertEquals(1, cpu.released.get());
        env.close();
        assertEquals(2, cpu.released.get());
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(new float[6], 2, 3),
                "y", Tensor.ofFloats(new float[6], 2, 3));
        assertThrows(OrtexException.class, () -> a.run(feeds));
        assertThrows(OrtexException.class, () -> env.createSession(model, new SessionOptions()));
        a.close();
        assertEquals(2, cpu.released.get(), "a second close releases nothing");
    }

    @Test
    void createSessionFromBytesAndFromAFileGiveTheSameResult(@TempDir Path dir) throws Exception {
        float[] x = {1, 2, 3, -4, -5, -6};
        float[] y = {2, 2, 2, -1, -1, -1};
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(x, 2, 3), "y", Tensor.ofFloats(y, 2, 3));
        try (Environment env = Environment.create();
             Session fromBytes = env.createSession(TestModels.addMulRelu().bytes(), new SessionOptions());
             Session fromFile = env.createSession(TestModels.addMulRelu().write(dir, "m.onnx"),
                     new SessionOptions())) {
            float[] want = TestModels.addMulReluExpected(x, y);
            assertArrayEquals(want, fromBytes.run(feeds).get("out").floats());
            assertArrayEquals(want, fromFile.run(feeds).get("out").floats());
            assertFalse(fromFile.modelMetadata().isEmpty());
            assertEquals("ortex-tests", fromFile.modelMetadata().get("producer_name"));
        }
    }
}
