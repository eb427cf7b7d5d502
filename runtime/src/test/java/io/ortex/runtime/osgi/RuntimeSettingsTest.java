package io.ortex.runtime.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.SessionOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Parsing of the runtime's ConfigAdmin properties, typed or as a {@code .cfg} file gives them, and their defaults. */
class RuntimeSettingsTest {
    @Test
    void defaults() {
        RuntimeSettings s = RuntimeSettings.DEFAULTS;
        assertNull(s.defaultPolicy());
        assertEquals(Duration.ofSeconds(30), s.drainLimit());
        assertTrue(s.failAtLimit());
        assertEquals(Set.of(), s.virtualGrants());
        assertFalse(s.grantsVirtualDevices("io.ortex.ep.example"));
        assertEquals(0, s.intraOpThreads());
        assertEquals(Map.of(), s.environmentConfig());
    }

    @Test
    void aCommandsEnvironmentIsAddedAndWinsOverConfigAdmin() {
        RuntimeSettings s = RuntimeSettings.parse(Map.of("allow_virtual_devices", "false",
                "ortex.discovery.sysfs_root", "/sys"), Map.of("allow_virtual_devices", "1",
                "ortex.compile_cache.dir", "/tmp/cache"));
        assertTrue(s.grantsVirtualDevices("any.bundle"));
        assertEquals(Map.of("allow_virtual_devices", "1", "ortex.compile_cache.dir", "/tmp/cache",
                "ortex.discovery.sysfs_root", "/sys"), s.environmentConfig());
    }

    @Test
    void stringsAsFromACfgFile() {
        RuntimeSettings s = RuntimeSettings.parse(Map.of("default.policy", "prefer_npu", "drain.limit.seconds", "5",
                "drain.outcome", "WAIT", "virtual.grants", "a.b, c.d", "intra.op.threads", "3",
                "ortex.discovery.sysfs_root", "/tmp/sys", "ortex.device.npu0.type", "NPU", "service.pid", "x"));
        assertEquals(ExecutionProviderDevicePolicy.PREFER_NPU, s.defaultPolicy());
        assertEquals(Duration.ofSeconds(5), s.drainLimit());
        assertFalse(s.failAtLimit());
        assertEquals(Set.of("a.b", "c.d"), s.virtualGrants());
        assertTrue(s.grantsVirtualDevices("c.d"));
        assertFalse(s.grantsVirtualDevices("e.f"));
        assertEquals(3, s.intraOpThreads());
        assertEquals(Map.of("ortex.discovery.sysfs_root", "/tmp/sys", "ortex.device.npu0.type", "NPU"),
                s.environmentConfig());
    }

    @Test
    void typedValues() {
        RuntimeSettings s = RuntimeSettings.parse(Map.of("drain.limit.seconds", 7L, "virtual.grants",
                new String[] {"x"}, "allow_virtual_devices", Boolean.TRUE));
        assertEquals(Duration.ofSeconds(7), s.drainLimit());
        assertTrue(s.grantsVirtualDevices("anything"));
        assertEquals(Set.of("x"), RuntimeSettings.parse(Map.of("virtual.grants", List.of("x"))).virtualGrants());
    }

    @Test
    void malformedValuesNameTheirKey() {
        for (Map<String, Object> bad : List.<Map<String, Object>>of(Map.of("default.policy", "FASTEST"),
                Map.of("drain.limit.seconds", "0"), Map.of("drain.limit.seconds", "soon"),
                Map.of("drain.outcome", "abort"), Map.of("intra.op.threads", -1))) {
            String key = bad.keySet().iterator().next();
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> RuntimeSettings.parse(bad));
            assertTrue(e.getMessage().contains(key), e.getMessage());
        }
    }

    @Test
    void defaultsApplyOnlyToWhatTheOptionsLeaveOpen() {
        RuntimeSettings s = RuntimeSettings.parse(Map.of("default.policy", "PREFER_GPU", "intra.op.threads", 2));
        SessionOptions plain = new SessionOptions().config("k", "v");
        SessionOptions applied = s.applyTo(plain);
        assertEquals(ExecutionProviderDevicePolicy.PREFER_GPU, applied.selectionPolicy());
        assertEquals(2, applied.intraOpThreads());
        assertEquals(Map.of("k", "v"), applied.config());
        assertNull(plain.selectionPolicy(), "the caller's options stay as they were");

        SessionOptions own = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_CPU)
                .intraOpThreads(1);
        assertSame(own, s.applyTo(own));
        SessionOptions ownPolicy = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_CPU);
        assertEquals(ExecutionProviderDevicePolicy.PREFER_CPU, s.applyTo(ownPolicy).selectionPolicy());
        assertEquals(2, s.applyTo(ownPolicy).intraOpThreads());
        assertSame(plain, RuntimeSettings.DEFAULTS.applyTo(plain));
    }

    @Test
    void resourceLimitsReachTheEnvironmentAndOnlyDiscoveryEntriesNeedARestart() {
        RuntimeSettings s = RuntimeSettings.parse(Map.of("ortex.limits.run_bytes", 1_000_000L,
                "ortex.limits.graph_nodes", "500", "ortex.discovery.sysfs_root", "/tmp/sys"));
        assertEquals(Map.of("ortex.limits.run_bytes", "1000000", "ortex.limits.graph_nodes", "500",
                "ortex.discovery.sysfs_root", "/tmp/sys"), s.environmentConfig());
        assertEquals(Map.of("ortex.discovery.sysfs_root", "/tmp/sys"), s.discoveryConfig());
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> RuntimeSettings.parse(Map.of("ortex.limits.run_bytes", "plenty")));
        assertTrue(e.getMessage().contains("ortex.limits.run_bytes"), e.getMessage());
    }
}
