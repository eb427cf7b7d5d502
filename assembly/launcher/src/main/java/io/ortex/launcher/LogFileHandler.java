package io.ortex.launcher;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.logging.ErrorManager;
import java.util.logging.FileHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;

/**
 * The java.util.logging handler of the distribution's shell: rotating files in {@code log/} of the distribution
 * ({@code ortex0.log} is the current one, {@code ortex1.log} the one before, and so on), one line per record with its
 * time, level and logger. It is named in {@code conf/logging-shell.properties}; its entries there:
 * {@code io.ortex.launcher.LogFileHandler.level} (default {@code INFO}), {@code .directory} (default
 * {@code ${ortex.home}/log}), {@code .limit} (bytes per file, default 10 MB), {@code .count} (files kept, default 5).
 * When the folder cannot be written, one {@code ortex: } line on standard error says so and the records go nowhere
 * else, so the shell still starts.
 */
public final class LogFileHandler extends Handler {
    /** The default size of one file, in bytes. */
    static final int DEFAULT_LIMIT = 10 * 1024 * 1024;
    /** The default number of files kept. */
    static final int DEFAULT_COUNT = 5;

    private final Handler files;

    /** Creates the handler from the logging configuration; called by java.util.logging. */
    public LogFileHandler() {
        LogManager m = LogManager.getLogManager();
        String prefix = LogFileHandler.class.getName();
        String folder = m.getProperty(prefix + ".directory");
        if (folder == null || folder.isBlank()) {
            folder = System.getProperty("ortex.home", ".") + "/log";
        }
        setLevel(level(m.getProperty(prefix + ".level")));
        Handler h = null;
        try {
            Path dir = Path.of(folder);
            Files.createDirectories(dir);
            h = new FileHandler(dir.resolve("ortex%g.log").toString(),
                    number(m.getProperty(prefix + ".limit"), DEFAULT_LIMIT),
                    number(m.getProperty(prefix + ".count"), DEFAULT_COUNT), true);
            h.setLevel(Level.ALL);
            h.setEncoding("UTF-8");
            h.setFormatter(new LineFormatter());
        } catch (IOException | RuntimeException e) {
            System.err.println("ortex: cannot write the log in " + folder + " (" + e + "); the shell logs no file");
        }
        files = h;
    }

    private static Level level(String value) {
        try {
            return value == null ? Level.INFO : Level.parse(value.trim());
        } catch (IllegalArgumentException e) {
            return Level.INFO;
        }
    }

    private static int number(String value, int fallback) {
        try {
            return value == null ? fallback : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    @Override
    public void publish(LogRecord r) {
        if (files != null && isLoggable(r)) {
            files.publish(r);
        }
    }

    @Override
    public void flush() {
        if (files != null) {
            files.flush();
        }
    }

    @Override
    public void close() {
        if (files != null) {
            files.close();
        }
    }

    @Override
    public void setErrorManager(ErrorManager em) {
        super.setErrorManager(em);
        if (files != null) {
            files.setErrorManager(em);
        }
    }

    /** One line per record: time, level, logger, message; a stack trace follows on its own lines. */
    static final class LineFormatter extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder sb = new StringBuilder()
                    .append(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
                            ZonedDateTime.ofInstant(r.getInstant(), ZoneId.systemDefault())))
                    .append(' ').append(r.getLevel().getName())
                    .append(' ').append(r.getLoggerName())
                    .append(": ").append(formatMessage(r))
                    .append(System.lineSeparator());
            if (r.getThrown() != null) {
                StringWriter w = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(w));
                sb.append(w);
            }
            return sb.toString();
        }
    }
}
