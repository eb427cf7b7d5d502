package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpLibraryInfo;
import io.ortex.api.Environment;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell's open sessions: open on an EP, list, run by id with counted runs, close releasing the EPs. */
class OpenSessionsTest {
    @TempDir
    Path dir;

    private static final List<String> EXAMPLE = List.of("--ep", "ExampleExecutionProvider", "--ep",
            "CPUExecutionProvider");

    private static String print(java.util.function.Consumer<PrintStream> body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            body.accept(out);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static Options open(String model, List<String> options) {
        List<String> args = new java.util.ArrayList<>(List.of(model));
        args.addAll(options);
        return Options.parse(args, OpenSessions.FLAGS, OpenSessions.VALUED);
    }

    @Test
    void anOpenSessionHoldsItsEpsUntilClosed() throws Exception {
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(8, 16, 4, 3));
        try (Environment env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
             OpenSessions sessions = new OpenSessions()) {
            String id = sessions.open(env, open(model.toString(), EXAMPLE));
            assertTrue(sessions.isOpen(id));
            assertTrue(env.epLibraries().stream().anyMatch(l -> l.holders().contains(id)
                    && l.devices().stream().anyMatch(d -> d.epName().equals("ExampleExecutionProvider"))),
                    env.epLibraries().toString());

            String run = print(out -> assertEquals(0, sessions.run(Options.parse(List.of(id, "--repeat", "3",
                    "--warmup", "1", "--shape", "x=2x8"), RunCommand.FLAGS, RunCommand.VALUED), out)));
            assertTrue(run.contains("ExampleExecutionProvider"), run);

            List<String> table = print(sessions::list).lines().toList();
            assertEquals(2, table.size(), table.toString());
            assertTrue(table.get(0).startsWith("ID ") && table.get(0).contains("RUNS"), table.get(0));
            assertTrue(table.get(1).startsWith(id + " ") && table.get(1).contains("ExampleExecutionProvider")
                    && table.get(1).matches(".*\\s4\\s+\\d+s$"), table.get(1));
            assertTrue(table.stream().allMatch(l -> l.length() <= 100), table.toString());

            sessions.close(id);
            assertFalse(sessions.isOpen(id));
            assertTrue(env.epLibraries().stream().map(EpLibraryInfo::holders).allMatch(List::isEmpty));
            UsageException e = assertThrows(UsageException.class, () -> sessions.close(id));
            assertEquals("no open session '" + id + "'; open: []", e.getMessage());
        }
    }

    @Test
    void optionsThatChooseEpsAreRefusedForAnOpenSessionAndEnvForOpen() throws Exception {
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(4, 4, 2, 1));
        try (Environment env = Environment.create(); OpenSessions sessions = new OpenSessions()) {
            UsageException env1 = assertThrows(UsageException.class, () -> sessions.open(env,
                    open(model.toString(), List.of("--env", "a=1"))));
            assertTrue(env1.getMessage().startsWith("--env is refused"), env1.getMessage());
            String id = sessions.open(env, open(model.toString(), List.of()));
            UsageException policy = assertThrows(UsageException.class, () -> sessions.run(Options.parse(
                    List.of(id, "--policy", "PREFER_CPU"), RunCommand.FLAGS, RunCommand.VALUED), System.out));
            assertEquals("--policy applies when a session is opened, not to open session " + id,
                    policy.getMessage());
        }
    }

    @Test
    void agesAreShort() {
        assertEquals("59s", OpenSessions.age(Duration.ofSeconds(59)));
        assertEquals("2m5s", OpenSessions.age(Duration.ofSeconds(125)));
        assertEquals("3h1m", OpenSessions.age(Duration.ofMinutes(181)));
    }

    @Test
    void tableCellsKeepTheirEnd() {
        assertEquals("abc", Table.fit("abc", 4));
        assertEquals("...6789", Table.fit("0123456789", 7));
        assertEquals("0123...", Table.fitStart("0123456789", 7));
    }
}
