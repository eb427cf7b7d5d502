package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.ErrorCode;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.EpFactory;
import io.ortex.ep.cpu.CpuEpFactory;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Registration of EP libraries from real jars, compiled during the test and loaded in their own class loaders
 * (ONNX Runtime's test_registration.cc scenarios), and their unloading.
 */
class LibraryRegistrationTest {

    @TempDir
    static Path dir;
    static Path mulJar;
    static Path virtualJar;

    @BeforeAll
    static void compilePlugins() throws Exception {
        mulJar = new PluginJar().build(dir, "mul-ep.jar");
        virtualJar = new PluginJar().epName("VirtNpuEP").virtualOnly().build(dir, "virt-npu-ep.jar");
    }

    static RuntimeEnvironment newEnvironment(Map<String, String> config) {
        return new RuntimeEnvironment(config, List.of(CPU), List.of(new CpuEpFactory()));
    }

    static List<EpDevice> devicesOf(Environment env, String epName) {
        return env.epDevices().stream().filter(d -> d.epName().equals(epName)).toList();
    }

    static Map<String, Tensor> feeds(float[] x, float[] y) {
        return Map.of("x", Tensor.ofFloats(x, 2, 3), "y", Tensor.ofFloats(y, 2, 3));
    }

    @Test
    void theCompiledClassesAreNotOnTheTestClassPath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("ortextest.plugin.TestEpFactory"));
    }

    @Test
    void aRegisteredJarOffersOneDeviceWithItsVendorMetadataAndOptionsAndRuns() {
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            env.registerLibrary("example_ep", mulJar);
            List<EpDevice> mine = devicesOf(env, "MulEP");
            assertEquals(1, mine.size(), env.epDevices().toString());
            EpDevice d = mine.get(0);
            assertEquals(PluginJar.VENDOR, d.epVendor());
            assertEquals(Map.of("version", "0.1.0", "supported_devices", "CrackGriffin 7+"), d.epMetadata());
            assertEquals("0.1.0", d.version());
            assertEquals(Map.of("run_really_fast", "true"), d.epOptions());
            assertEquals(CPU, d.device());
            assertEquals(List.of("CPUExecutionProvider", "MulEP"),
                    env.epDevices().stream().map(EpDevice::epName).toList(), "registration order");

            float[] x = {1, 2, 3, 4, 5, 6};
            float[] y = {2, 2, 2, -1, 0.5f, 3};
            SessionOptions options = new SessionOptions().appendExecutionProvider(mine, Map.of());
            try (Session s = env.createSession(TestModels.mul().bytes(), options)) {
                assertEquals(List.of("MulEP", "CPUExecutionProvider"), s.executionProviders());
                assertEquals("MulEP", s.assignment().get(0).ep());
                assertArrayEquals(new float[] {2, 4, 6, -4, 2.5f, 18}, s.run(feeds(x, y)).get("out").floats());
            }
            assertEquals(io.ortex.api.DeviceIncompatibility.COMPATIBLE, env.deviceIncompatibility("MulEP", CPU));
            assertTrue(env.libraries().stream().allMatch(l -> l.endsWith("[]")), "the query left a lease: "
                    + env.libraries());
            env.unregisterLibrary("example_ep");
            assertEquals(List.of(), devicesOf(env, "MulEP"));
            assertThrows(InvalidArgumentException.class, () -> env.deviceIncompatibility("MulEP", CPU));
        }
    }

    @Test
    void aSecondLibraryUnderTheSameNameIsRefusedAndTheFirstStays() {
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            env.registerLibrary("example_ep", mulJar);
            List<EpDevice> before = env.epDevices();
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("example_ep", virtualJar));
            assertTrue(e.getMessage().contains("already registered") && e.getMessage().contains("example_ep"),
                    e.getMessage());
            assertEquals(before, env.epDevices());
            assertNotNull(env.libraryClassLoader("example_ep"));
            env.unregisterLibrary("example_ep");
        }
    }

    @Test
    void aNameWithALineBreakOrAnEscapeIsRefusedEscaped() {
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("evil\nEP library 'x' arrived", mulJar));
            assertTrue(e.getMessage().contains("'evil\\nEP library") && !e.getMessage().contains("\n"),
                    e.getMessage());
            InvalidArgumentException bell = assertThrows(InvalidArgumentException.class,
                    () -> env.registerFactories("bell\u0007", List.of(), false));
            assertTrue(bell.getMessage().contains("control character"), bell.getMessage());
            assertEquals(List.of("CPUExecutionProvider"), env.epDevices().stream().map(EpDevice::epName).toList());
        }
    }

    @Test
    void aJarWithoutAProviderIsRefusedNamingTheJar() throws Exception {
        Path jar = new PluginJar().epName("NoProviderEP").withoutProvider().build(dir, "no-provider.jar");
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("none", jar));
            assertTrue(e.getMessage().contains(jar.toString()) && e.getMessage().contains("none"), e.getMessage());
            assertEquals(List.of("CPUExecutionProvider"), env.epDevices().stream().map(EpDevice::epName).toList());
            assertThrows(InvalidArgumentException.class, () -> env.unregisterLibrary("none"),
                    "nothing was registered");
        }
    }

    @Test
    void aJarWhoseProviderTheApplicationAlreadyLoadsSaysSo() throws Exception {
        // a jar that declares the CPU EP, whose classes the test class path already holds (as the module path does)
        Path jar = dir.resolve("cpu-again.jar");
        try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(java.nio.file.Files
                .newOutputStream(jar))) {
            out.putNextEntry(new java.util.jar.JarEntry("META-INF/services/" + EpFactory.class.getName()));
            out.write("io.ortex.ep.cpu.CpuEpFactory\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.closeEntry();
        }
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("again", jar));
            assertTrue(e.getMessage().contains("io.ortex.ep.cpu.CpuEpFactory")
                    && e.getMessage().contains("already loads"), e.getMessage());
            assertFalse(e.getMessage().contains("declares no"), e.getMessage());
        }
    }

    @Test
    void aFileThatIsNotAZipIsRefusedAsSuch() throws Exception {
        Path text = java.nio.file.Files.writeString(dir.resolve("text.jar"), "not a zip");
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("text", text));
            assertTrue(e.getMessage().contains("is not a jar (zip) file"), e.getMessage());
        }
    }

    @Test
    void aMissingFileIsRefused() {
        Path missing = dir.resolve("does-not-exist.jar");
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("missing", missing));
            assertEquals(ErrorCode.NO_SUCH_FILE, e.code());
            assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        }
    }

    @Test
    void aFactoryWhoseVersionIsNotSemVerIsRefusedAndLeavesNothingBehind() throws Exception {
        Path jar = new PluginJar().version("1.0").build(dir, "bad-version.jar");
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            OrtexException e = assertThrows(OrtexException.class, () -> env.registerLibrary("example_ep", jar));
            assertTrue(e.getMessage().contains("MulEP") && e.getMessage().contains("'1.0'")
                    && e.getMessage().contains("SemVer"), e.getMessage());
            assertEquals(List.of(), devicesOf(env, "MulEP"));
            env.registerLibrary("example_ep", mulJar);
            assertEquals(1, devicesOf(env, "MulEP").size(), "the name and the EP name are free again");
            env.unregisterLibrary("example_ep");
        }
    }

    @Test
    void aFactoryThatSetsTheVersionMetadataItselfIsRefused() throws Exception {
        Path jar = new PluginJar().setsVersionMetadata().build(dir, "sets-version.jar");
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            OrtexException e = assertThrows(OrtexException.class, () -> env.registerLibrary("example_ep", jar));
            assertTrue(e.getMessage().contains("MulEP") && e.getMessage().contains("version"), e.getMessage());
            assertEquals(List.of(), devicesOf(env, "MulEP"));
        }
    }

    @Test
    void virtualDevicesNeedTheVirtualSuffixOrTheEnvironmentEntry() {
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            env.registerLibrary("virt_npu", virtualJar);
            assertEquals(List.of(), devicesOf(env, "VirtNpuEP"));
            assertFalse(env.config().containsKey(Environment.ALLOW_VIRTUAL_DEVICES));
            env.unregisterLibrary("virt_npu");

            env.registerLibrary("virt_npu" + Environment.VIRTUAL_SUFFIX, virtualJar);
            List<EpDevice> virt = devicesOf(env, "VirtNpuEP");
            assertEquals(1, virt.size());
            EpDevice d = virt.get(0);
            assertEquals(HardwareDeviceType.NPU, d.device().type());
            assertTrue(d.device().isVirtual());
            assertEquals("1", d.device().metadata().get(HardwareDevice.IS_VIRTUAL));
            assertEquals(PluginJar.VENDOR_ID, d.device().vendorId());
            assertEquals(0, d.device().deviceId());
            assertEquals(d.epVendor(), d.device().vendor());
            assertEquals(Map.of("version", "0.1.0", "some_metadata", "1"), d.epMetadata());
            assertEquals(Map.of("compile_optimization", "O3"), d.epOptions());
            assertEquals("1", env.config().get(Environment.ALLOW_VIRTUAL_DEVICES),
                    "a .virtual library allows virtual devices while it is registered");
            env.unregisterLibrary("virt_npu" + Environment.VIRTUAL_SUFFIX);
            assertFalse(env.config().containsKey(Environment.ALLOW_VIRTUAL_DEVICES));

            env.registerLibrary("virt_npu", virtualJar);
            assertEquals(List.of(), devicesOf(env, "VirtNpuEP"), "the grant went with the .virtual library");
            env.unregisterLibrary("virt_npu");
        }
        try (RuntimeEnvironment env = newEnvironment(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"))) {
            env.registerLibrary("virt_npu", virtualJar);
            List<EpDevice> virt = devicesOf(env, "VirtNpuEP");
            assertEquals(1, virt.size());
            assertTrue(virt.get(0).device().isVirtual());
            env.unregisterLibrary("virt_npu");
        }
    }

    @Test
    void listenersHearDevicesArriveAndLeaveWithTheLibraryName() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        List<List<EpDevice>> devices = Collections.synchronizedList(new ArrayList<>());
        EpDeviceListener listener = new EpDeviceListener() {
            @Override
            public void added(String library, List<EpDevice> added) {
                events.add("added " + library);
                devices.add(added);
            }

            @Override
            public void removed(String library, List<EpDevice> removed) {
                events.add("removed " + library);
                devices.add(removed);
            }
        };
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            env.addEpDeviceListener(listener);
            env.registerLibrary("example_ep", mulJar);
            List<EpDevice> mine = devicesOf(env, "MulEP");
            env.unregisterLibrary("example_ep");
            env.removeEpDeviceListener(listener);
            env.registerLibrary("example_ep", mulJar);
            env.unregisterLibrary("example_ep");
            assertEquals(List.of("added example_ep", "removed example_ep"), events);
            assertEquals(List.of(mine, mine), devices);
        }
    }

    @Test
    void unregisteringAnUnknownNameIsRefused() {
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.unregisterLibrary("never_registered"));
            assertTrue(e.getMessage().contains("never_registered"), e.getMessage());
        }
    }

    @Test
    void theLibrarysClassLoaderIsCollectedOnceUnregisteredAndItsSessionsClosed() throws Exception {
        try (RuntimeEnvironment env = newEnvironment(Map.of())) {
            WeakReference<ClassLoader> loader = registerUseAndUnregister(env);
            for (int i = 0; i < 50 && loader.get() != null; i++) {
                System.gc();
                byte[][] garbage = new byte[16][];
                for (int k = 0; k < garbage.length; k++) {
                    garbage[k] = new byte[64 * 1024];
                }
                Thread.sleep(20);
            }
            assertNull(loader.get(), "the class loader of the unregistered library is still reachable");
            assertEquals(List.of(), PluginCalls.violations("MulEP"));
        }
    }

    /** Registers the jar, runs a session on its EP, closes it and unregisters; keeps no strong reference. */
    private static WeakReference<ClassLoader> registerUseAndUnregister(RuntimeEnvironment env) {
        env.registerLibrary("unload_me", mulJar);
        ClassLoader loader = env.libraryClassLoader("unload_me");
        assertNotNull(loader);
        assertInstanceOf(java.net.URLClassLoader.class, loader);
        float[] x = {1, 2, 3, 4, 5, 6};
        SessionOptions options = new SessionOptions().appendExecutionProvider(devicesOf(env, "MulEP"), Map.of());
        try (Session s = env.createSession(TestModels.addMulAdd().bytes(), options)) {
            assertEquals(List.of("CPUExecutionProvider", "MulEP", "CPUExecutionProvider"),
                    s.assignment().stream().map(NodeAssignment::ep).toList());
            assertArrayEquals(TestModels.addMulAddExpected(x, x), s.run(feeds(x, x)).get("out").floats());
            assertThrows(OrtexException.class, () -> env.unregisterLibrary("unload_me"));
        }
        env.unregisterLibrary("unload_me");
        assertNull(env.libraryClassLoader("unload_me"));
        return new WeakReference<>(loader);
    }
}
