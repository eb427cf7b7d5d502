package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OptionsTest {
    private static final Set<String> FLAGS = Set.of("--json");
    private static final Set<String> VALUED = Set.of("--repeat", "--config", "--atol");

    private static Options parse(String... args) {
        return Options.parse(List.of(args), FLAGS, VALUED);
    }

    @Test
    void separatesFlagsValuesAndPositionals() {
        Options o = parse("model.onnx", "--json", "--repeat", "3", "--config=a=1", "--config", "b=2=3", "-5");
        assertEquals(List.of("model.onnx", "-5"), o.positional());
        assertTrue(o.has("--json"));
        assertFalse(o.has("--atol"));
        assertEquals(3, o.getInt("--repeat", 1, 1));
        assertEquals(Map.of("a", "1", "b", "2=3"), o.keyValues("--config"));
        assertEquals(List.of("a=1", "b=2=3"), o.all("--config"));
        assertEquals(7, o.getInt("--missing", 7, 0));
    }

    @Test
    void theLastValueWins() {
        assertEquals("2", parse("--repeat", "1", "--repeat=2").get("--repeat", null));
    }

    @Test
    void refusesMistakesNamingTheOption() {
        assertMessage("--frob", () -> parse("--frob"));
        assertMessage("--json", () -> parse("--json=yes"));
        assertMessage("--repeat", () -> parse("--repeat"));
        assertMessage("--repeat", () -> parse("--repeat", "0").getInt("--repeat", 1, 1));
        assertMessage("--repeat", () -> parse("--repeat", "x").getInt("--repeat", 1, 1));
        assertMessage("--atol", () -> parse("--atol", "-1").getDouble("--atol", 0));
        assertMessage("--atol", () -> parse("--atol", "NaN").getDouble("--atol", 0));
        assertMessage("--atol", () -> parse("--atol", "abc").getDouble("--atol", 0));
        assertMessage("--config", () -> parse("--config", "novalue").keyValues("--config"));
        assertMessage("--config", () -> parse("--config", "=v").keyValues("--config"));
    }

    @Test
    void numbersAreReadLeniently() {
        assertEquals(0.5, parse("--atol", " 0.5 ").getDouble("--atol", 0));
        assertEquals(4, parse("--repeat", " 4").getInt("--repeat", 1, 1));
    }

    private static void assertMessage(String culprit, Runnable r) {
        UsageException e = assertThrows(UsageException.class, r::run);
        assertTrue(e.getMessage().contains(culprit), e.getMessage());
    }
}
