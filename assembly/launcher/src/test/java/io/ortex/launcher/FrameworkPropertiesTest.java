package io.ortex.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's framework properties: variables, overrides, and the error for a variable without a value. */
class FrameworkPropertiesTest {
    @Test
    void variablesAreReplacedAndSystemPropertiesOverride(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("config.properties");
        Files.writeString(file, "felix.fileinstall.dir=${ortex.home}/conf,${ortex.home}/deploy\n"
                + "felix.fileinstall.poll=500\nfelix.fileinstall.filter=[^.~].*\\\\.(jar|cfg)\n");
        Map<String, String> vars = Map.of("ortex.home", "/opt/ortex", "felix.fileinstall.poll", "100");
        Map<String, String> p = FrameworkProperties.read(file, vars::get);
        assertEquals("/opt/ortex/conf,/opt/ortex/deploy", p.get("felix.fileinstall.dir"));
        assertEquals("100", p.get("felix.fileinstall.poll"));
        assertEquals("[^.~].*\\.(jar|cfg)", p.get("felix.fileinstall.filter"));
    }

    @Test
    void customPropertiesReplaceEntriesAndSystemPropertiesStillWin(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("config.properties"), "org.apache.felix.http.host=127.0.0.1\n"
                + "org.osgi.service.http.port=8080\nfelix.log.level=1\n");
        Map<String, String> vars = Map.of("ortex.home", "/opt/ortex", "org.osgi.service.http.port", "9000");
        assertEquals("127.0.0.1", FrameworkProperties.readAll(dir, vars::get).get("org.apache.felix.http.host"));

        Files.writeString(dir.resolve("custom.properties"), "org.apache.felix.http.host=0.0.0.0\n"
                + "org.osgi.service.http.port=8081\nortex.models=${ortex.home}/models\n");
        Map<String, String> p = FrameworkProperties.readAll(dir, vars::get);
        assertEquals("0.0.0.0", p.get("org.apache.felix.http.host"));
        assertEquals("9000", p.get("org.osgi.service.http.port"));
        assertEquals("1", p.get("felix.log.level"));
        assertEquals("/opt/ortex/models", p.get("ortex.models"));
    }

    @Test
    void aVariableWithoutValueNamesTheFileAndEntry(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("config.properties");
        Files.writeString(file, "a=${nowhere}/x\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FrameworkProperties.read(file, name -> null));
        assertEquals(file + ": a refers to ${nowhere}, which has no value", e.getMessage());
    }
}
