package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * EP libraries with deliberate faults, compiled into real jars and registered in their own class loaders: an EP that
 * throws in getCapability is skipped with a logged reason; one that throws in compile fails session creation naming
 * it, or is left out when the session allows that; one that throws in compute fails that run only; one that hangs in
 * compile is cut off after the configured time. Every faulty EP is released, once, and its library unregisters.
 */
class EpFaultsTest {
    @TempDir
    static Path dir;
    static Path capabilityJar;
    static Path compileJar;
    static Path computeJar;
    static Path hangJar;

    private final ConcurrentLinkedQueue<String> warnings = new ConcurrentLinkedQueue<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                warnings.add(r.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeAll
    static void compilePlugins() throws Exception {
        capabilityJar = new PluginJar().epName("CapabilityFaultEP").fault(PluginJar.Fault.CAPABILITY_THROWS)
                .build(dir, "capability.jar");
        compileJar = new PluginJar().epName("CompileFaultEP").fault(PluginJar.Fault.COMPILE_THROWS)
                .build(dir, "compile.jar");
        computeJar = new PluginJar().epName("ComputeFaultEP").fault(PluginJar.Fault.COMPUTE_THROWS_ON_NEGATIVE)
                .build(dir, "compute.jar");
        hangJar = new PluginJar().epName("HangEP").fault(PluginJar.Fault.COMPILE_HANGS).build(dir, "hang.jar");
    }

    @BeforeEach
    void listen() {
        Logger.getLogger("io.ortex.runtime").addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        Logger.getLogger("io.ortex.runtime").removeHandler(capture);
    }

    private static SessionOptions on(RuntimeEnvironment env, String epName) {
        List<EpDevice> devices = LibraryRegistrationTest.devicesOf(env, epName);
        assertEquals(1, devices.size(), env.epDevices().toString());
        return new SessionOptions().appendExecutionProvider(devices, Map.of());
    }

    private static Map<String, Tensor> feeds(float first) {
        return LibraryRegistrationTest.feeds(new float[] {first, 2, 3, 4, 5, 6}, new float[] {2, 2, 2, 2, 2, 2});
    }

    private static void assertUnregistersCleanly(RuntimeEnvironment env, String library, String epName) {
        env.unregisterLibrary(library);
        assertEquals(List.of(), PluginCalls.violations(epName));
    }

    @Test
    void anEpThatThrowsInGetCapabilityIsSkippedWithALoggedReason() {
        try (RuntimeEnvironment env = LibraryRegistrationTest.newEnvironment(Map.of())) {
            env.registerLibrary("capability", capabilityJar);
            try (Session s = env.createSession(TestModels.mul().bytes(), on(env, "CapabilityFaultEP"))) {
                assertEquals("CPUExecutionProvider", s.assignment().get(0).ep());
                assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, s.run(feeds(1)).get("out").floats());
            }
            assertTrue(warnings.stream().anyMatch(w -> w.contains("CapabilityFaultEP failed in getCapability")
                    && w.contains("a deliberate failure in getCapability")), warnings.toString());
            assertUnregistersCleanly(env, "capability", "CapabilityFaultEP");
        }
    }

    @Test
    void anEpThatThrowsInCompileFailsSessionCreationNamingIt() {
        try (RuntimeEnvironment env = LibraryRegistrationTest.newEnvironment(Map.of())) {
            env.registerLibrary("compile", compileJar);
            OrtexException e = assertThrows(OrtexException.class,
                    () -> env.createSession(TestModels.mul().bytes(), on(env, "CompileFaultEP")));
            assertTrue(e.getMessage().contains("EP CompileFaultEP failed to compile")
                    && e.getMessage().contains("a deliberate failure in compile"), e.getMessage());
            assertUnregistersCleanly(env, "compile", "CompileFaultEP");
        }
    }

    @Test
    void anEpThatThrowsInCompileIsLeftOutWhenTheSessionAllowsIt() {
        try (RuntimeEnvironment env = LibraryRegistrationTest.newEnvironment(Map.of())) {
            env.registerLibrary("compile", compileJar);
            SessionOptions options = on(env, "CompileFaultEP").config(SessionOptions.RETRY_WITHOUT_FAILED_EP, "1");
            try (Session s = env.createSession(TestModels.mul().bytes(), options)) {
                assertEquals(List.of("CPUExecutionProvider"), s.executionProviders());
                assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, s.run(feeds(1)).get("out").floats());
            }
            assertTrue(warnings.stream().anyMatch(w -> w.contains("creating the session without EP CompileFaultEP")),
                    warnings.toString());
            SessionOptions noFallback = on(env, "CompileFaultEP").config(SessionOptions.RETRY_WITHOUT_FAILED_EP, "1")
                    .config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1");
            assertThrows(OrtexException.class, () -> env.createSession(TestModels.mul().bytes(), noFallback),
                    "without the CPU fallback there is nothing to go on with");
            assertUnregistersCleanly(env, "compile", "CompileFaultEP");
        }
    }

    @Test
    void anEpThatThrowsInComputeFailsThatRunOnly() {
        try (RuntimeEnvironment env = LibraryRegistrationTest.newEnvironment(Map.of())) {
            env.registerLibrary("compute", computeJar);
            try (Session s = env.createSession(TestModels.mul().bytes(), on(env, "ComputeFaultEP"))) {
                assertEquals("ComputeFaultEP", s.assignment().get(0).ep());
                assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, s.run(feeds(1)).get("out").floats());
                OrtexException e = assertThrows(OrtexException.class, () -> s.run(feeds(-1)));
                assertTrue(e.getMessage().contains("of EP ComputeFaultEP failed")
                        && e.getMessage().contains("a deliberate failure in compute"), e.getMessage());
                assertArrayEquals(new float[] {6, 4, 6, 8, 10, 12}, s.run(feeds(3)).get("out").floats(),
                        "the session keeps working");
            }
            assertUnregistersCleanly(env, "compute", "ComputeFaultEP");
        }
    }

    @Test
    void anEpThatHangsInCompileIsCutOffAfterTheConfiguredTime() throws Exception {
        try (RuntimeEnvironment env = LibraryRegistrationTest.newEnvironment(Map.of())) {
            env.registerLibrary("hang", hangJar);
            SessionOptions options = on(env, "HangEP").config(SessionOptions.EP_COMPILE_TIMEOUT_MS, "300");
            OrtexException e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(
                    OrtexException.class, () -> env.createSession(TestModels.mul().bytes(), options)));
            assertTrue(e.getMessage().contains("EP HangEP did not finish compiling")
                    && e.getMessage().contains(SessionOptions.EP_COMPILE_TIMEOUT_MS), e.getMessage());
            SessionOptions goOn = on(env, "HangEP").config(SessionOptions.EP_COMPILE_TIMEOUT_MS, "300")
                    .config(SessionOptions.RETRY_WITHOUT_FAILED_EP, "1");
            try (Session s = assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> env.createSession(TestModels.mul().bytes(), goOn))) {
                assertEquals(List.of("CPUExecutionProvider"), s.executionProviders());
            }
            // the cut-off calls return once let go, and release their EPs themselves
            PluginCalls.releaseHangs();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().equals("ortex-compile-HangEP")) {
                    t.join(10_000);
                    assertTrue(!t.isAlive(), "the cut-off compile call returned");
                }
            }
            assertUnregistersCleanly(env, "hang", "HangEP");
        }
    }
}
