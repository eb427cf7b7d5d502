package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Commands run with a shared environment: they get a view that does not close it, and --env is refused unless the
 * shared environment was created with those entries (the framework of one verb).
 */
class SharedEnvironmentTest {
    private static Options options(String... args) {
        return Options.parse(List.of(args), DeviceCommands.FLAGS, DeviceCommands.VALUED);
    }

    @Test
    void aCommandSeesTheSharedEnvironmentAndLeavesItOpen() throws Exception {
        try (Environment shared = Environment.create()) {
            int devices = shared.epDevices().size();
            SessionSettings.withEnvironment(shared, () -> {
                try (Environment view = SessionSettings.environment(options())) {
                    assertNotSame(shared, view);
                    assertEquals(shared.epDevices(), view.epDevices());
                    assertSame(shared.epLibraries().size(), view.epLibraries().size());
                }
                return null;
            });
            assertEquals(devices, shared.epDevices().size(), "closing the view left the environment open");
            UsageException e = assertThrows(UsageException.class, () -> SessionSettings.withEnvironment(shared,
                    () -> SessionSettings.environment(options("--env", "allow_virtual_devices=1"))));
            assertTrue(e.getMessage().startsWith("--env allow_virtual_devices: the shell's runtime is shared by "
                    + "every command and configured through ConfigAdmin"), e.getMessage());
        }
        try (Environment oneVerb = Environment.create(Map.of("allow_virtual_devices", "1"))) {
            SessionSettings.withEnvironment(oneVerb, () -> {
                try (Environment view = SessionSettings.environment(options("--env", "allow_virtual_devices=1"))) {
                    assertEquals("1", view.config().get("allow_virtual_devices"));
                }
                return null;
            });
            UsageException other = assertThrows(UsageException.class, () -> SessionSettings.withEnvironment(oneVerb,
                    () -> SessionSettings.environment(options("--env", "allow_virtual_devices=0"))));
            assertTrue(other.getMessage().startsWith("--env allow_virtual_devices: "), other.getMessage());
        }
        try (Environment own = SessionSettings.environment(options("--env", "allow_virtual_devices=1"))) {
            assertEquals(Map.of("allow_virtual_devices", "1"), own.config(), "outside, --env makes a new one");
        }
    }
}
