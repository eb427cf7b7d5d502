package io.ortex.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LauncherModeTest {
    @Test
    void noArgumentsOrShellIsTheShell() {
        assertEquals(Launcher.Mode.SHELL, Launcher.Mode.of());
        assertEquals(Launcher.Mode.SHELL, Launcher.Mode.of("shell"));
    }

    @Test
    void serveAloneIsTheServer() {
        assertEquals(Launcher.Mode.SERVE, Launcher.Mode.of("serve"));
    }

    @Test
    void anythingElseIsAVerb() {
        assertEquals(Launcher.Mode.VERB, Launcher.Mode.of("serve", "--verbose"));
        assertEquals(Launcher.Mode.VERB, Launcher.Mode.of("run", "model.onnx"));
        assertEquals(Launcher.Mode.VERB, Launcher.Mode.of("shell", "x"));
    }
}
