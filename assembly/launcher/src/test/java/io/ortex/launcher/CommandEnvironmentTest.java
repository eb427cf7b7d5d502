package io.ortex.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** A verb's {@code --env} entries, as the launcher hands them to the runtime of the verb's framework. */
class CommandEnvironmentTest {
    @Test
    void bothSpellingsAreCollectedAndOtherOptionsIgnored() {
        Map<String, String> env = CommandEnvironment.of(List.of("run", "m.onnx", "--env", "allow_virtual_devices=1",
                "--config", "a=b", "--env=ortex.compile_cache.dir=/tmp/c=d", "--policy", "PREFER_NPU"));
        assertEquals(Map.of("allow_virtual_devices", "1", "ortex.compile_cache.dir", "/tmp/c=d"), env);
    }

    @Test
    void malformedEntriesAreLeftToTheVerb() {
        assertEquals(Map.of(), CommandEnvironment.of(List.of("eps", "--env", "novalue", "--env", "=x", "--env")));
    }

    @Test
    void anyCharacterSurvivesTheFrameworkProperty() throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("a key:with=odd chars", "line one\nline two\t#not a comment \\ done");
        env.put("ünïcode", "✓");
        Properties p = new Properties();
        p.load(new StringReader(CommandEnvironment.encode(env)));
        assertEquals(env, Map.copyOf(p));
    }
}
