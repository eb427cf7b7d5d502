package io.ortex.ep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.EpInUseException;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.Environment;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorComparison;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge to ONNX Runtime's native plugin-EP libraries. No plugin-EP library ships in a package registry reachable
 * here, so the mechanism (devices listed as Ortex EP devices, sessions run through ONNX Runtime with those devices
 * appended, unregistration only after the last session closed) is driven with ONNX Runtime's built-in CPU EP devices
 * ({@link BuiltInDeviceLoader}); the registration itself is checked against ONNX Runtime on every error path: a missing
 * file, a file that is not a library, and a library without the plugin entry points.
 */
class PluginBridgeTest {
    private static List<EpDevice> devicesOf(Environment env, String ep) {
        return env.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
    }

    @Test
    void aLibrarysDevicesBecomeOrtexEpDevicesAndRunThroughOnnxRuntime(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("vendor.builtin"), "stands for a native library");
        Map<String, Tensor> in = Map.of("x", Models.randomTensor(4, 3, 4));
        Tensor want = OrtDirect.run(Models.layer(), in, 1).get("out");
        try (Environment env = Environment.create()) {
            env.registerLibrary("vendor", file);
            List<EpDevice> bridged = devicesOf(env, BuiltInDeviceLoader.EP);
            assertEquals(1, bridged.size(), env.epDevices().toString());
            EpDevice d = bridged.get(0);
            assertEquals("Microsoft", d.epVendor());
            assertEquals("vendor", d.epMetadata().get(PluginEpFactory.ORT_LIBRARY));
            assertEquals("CPUExecutionProvider", d.epMetadata().get(OrtDevices.ORT_EP_NAME));
            assertEquals(OrtRuntime.version(), d.version());
            assertFalse(d.device().isVirtual());
            PluginLibrary library = BuiltInDeviceLoader.LOADED.get(BuiltInDeviceLoader.LOADED.size() - 1);
            Session s = env.createSession(Models.layer(), new SessionOptions().appendExecutionProvider(bridged,
                    Map.of("intra_op_num_threads", "1", "some_plugin_option", "on")));
            try {
                assertEquals(List.of(BuiltInDeviceLoader.EP, "CPUExecutionProvider"), s.executionProviders());
                assertTrue(s.assignment().stream().allMatch(a -> a.ep().equals(BuiltInDeviceLoader.EP)));
                assertNull(TensorComparison.difference(want, s.run(in).get("out"), 0, 1e-6));
                assertEquals(1, library.sessions());
                assertThrows(EpInUseException.class, () -> env.unregisterLibrary("vendor"));
                library.close();
                assertFalse(library.isUnregistered(), "not while a session uses it");
                assertThrows(EpUnavailableException.class, library::opening, "no new session once closing");
            } finally {
                s.close();
            }
            assertTrue(library.isUnregistered(), "unregistered when the last session closed");
            assertEquals("vendor", BuiltInDeviceLoader.UNREGISTERED.get(BuiltInDeviceLoader.UNREGISTERED.size() - 1));
            env.unregisterLibrary("vendor");
            assertTrue(devicesOf(env, BuiltInDeviceLoader.EP).isEmpty());
        }
    }

    @Test
    void unregisteringWaitsForTheSessionsOfTheLibrary(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("other.builtin"), "x");
        try (Environment env = Environment.create()) {
            env.registerLibrary("other", file);
            PluginLibrary library = BuiltInDeviceLoader.LOADED.get(BuiltInDeviceLoader.LOADED.size() - 1);
            Session s = env.createSession(Models.layer(), new SessionOptions().appendExecutionProvider(
                    devicesOf(env, BuiltInDeviceLoader.EP), Map.of()));
            Thread closer = new Thread(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                s.close();
            });
            closer.start();
            env.unregisterLibrary("other", java.time.Duration.ofSeconds(10));
            closer.join();
            assertTrue(library.isUnregistered());
            assertEquals(0, library.sessions());
        }
    }

    @Test
    void registrationErrorsNameTheFileAndLeaveNothingRegistered(@TempDir Path dir) throws Exception {
        Path textFile = Files.writeString(dir.resolve("libnot_a_library.so"), "this is text, not ELF");
        Path noEntryPoints = Path.of(System.getProperty("java.home"), "lib", System.mapLibraryName("java"));
        try (Environment env = Environment.create()) {
            int devices = env.epDevices().size();
            InvalidArgumentException missing = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("vendor", dir.resolve("libmissing_ep.so")));
            assertEquals(ErrorCode.NO_SUCH_FILE, missing.code());
            assertTrue(missing.getMessage().contains("libmissing_ep.so does not exist"), missing.getMessage());
            for (int attempt = 0; attempt < 2; attempt++) {
                InvalidArgumentException text = assertThrows(InvalidArgumentException.class,
                        () -> env.registerLibrary("vendor", textFile));
                assertTrue(text.getMessage().contains(textFile.toString()), text.getMessage());
                assertTrue(text.getMessage().contains("ONNX Runtime cannot register"), text.getMessage());
            }
            if (Files.isRegularFile(noEntryPoints)) {
                InvalidArgumentException entry = assertThrows(InvalidArgumentException.class,
                        () -> env.registerLibrary("vendor", noEntryPoints));
                assertTrue(entry.getMessage().contains("CreateEpFactories"), entry.getMessage());
            }
            assertEquals(devices, env.epDevices().size(), "no device was added");
            assertTrue(env.epLibraries().stream().noneMatch(l -> l.name().equals("vendor")));
        }
    }
}
