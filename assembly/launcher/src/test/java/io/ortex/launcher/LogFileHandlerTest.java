package io.ortex.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell's log files: one line per record, rotation by size, and a folder that cannot be written. */
class LogFileHandlerTest {
    private static final String PREFIX = LogFileHandler.class.getName();

    private static void configure(String entries) throws IOException {
        LogManager.getLogManager().updateConfiguration(
                new ByteArrayInputStream(entries.getBytes(StandardCharsets.ISO_8859_1)),
                key -> key.startsWith(PREFIX) ? (before, after) -> after : (before, after) -> before);
    }

    @AfterEach
    void forget() throws IOException {
        configure("");
    }

    private static LogRecord record(Level level, String logger, String message) {
        LogRecord r = new LogRecord(level, message);
        r.setLoggerName(logger);
        return r;
    }

    @Test
    void writesOneLinePerRecordWithLevelAndLogger(@TempDir Path dir) throws Exception {
        configure(PREFIX + ".directory=" + dir.resolve("log") + "\n");
        LogFileHandler h = new LogFileHandler();
        try {
            h.publish(record(Level.INFO, "io.ortex.runtime.drain", "EP library 'x' removed after 3 ms: drained"));
            h.publish(record(Level.FINE, "io.ortex.runtime.drain", "below the handler's level"));
        } finally {
            h.close();
        }
        List<String> lines = Files.readAllLines(dir.resolve("log/ortex0.log"));
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).endsWith(" INFO io.ortex.runtime.drain: EP library 'x' removed after 3 ms: drained"),
                lines.get(0));
    }

    @Test
    void rotatesBySizeKeepingTheConfiguredNumberOfFiles(@TempDir Path dir) throws Exception {
        configure(PREFIX + ".directory=" + dir + "\n" + PREFIX + ".limit=1000\n" + PREFIX + ".count=2\n");
        LogFileHandler h = new LogFileHandler();
        try {
            for (int i = 0; i < 100; i++) {
                h.publish(record(Level.WARNING, "io.ortex.runtime.cache", "record " + i + " of a long run"));
            }
        } finally {
            h.close();
        }
        List<String> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")).sorted().toList();
        }
        assertEquals(List.of("ortex0.log", "ortex1.log"), files);
        assertTrue(Files.size(dir.resolve("ortex0.log")) <= 1000);
        assertTrue(Files.readString(dir.resolve("ortex0.log")).contains("record 99 of a long run"));
    }

    @Test
    void aFolderThatCannotBeWrittenDropsTheRecords(@TempDir Path dir) throws Exception {
        Path notAFolder = Files.writeString(dir.resolve("log"), "a file");
        configure(PREFIX + ".directory=" + notAFolder + "\n");
        PrintStream err = System.err;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
        try {
            LogFileHandler h = new LogFileHandler();
            h.publish(record(Level.SEVERE, "io.ortex.runtime.registry", "nowhere to go"));
            h.flush();
            h.close();
        } finally {
            System.setErr(err);
        }
        assertTrue(said.toString(StandardCharsets.UTF_8).startsWith("ortex: cannot write the log in " + notAFolder),
                said.toString(StandardCharsets.UTF_8));
        assertFalse(Files.isDirectory(notAFolder));
        assertEquals("a file", Files.readString(notAFolder));
    }
}
