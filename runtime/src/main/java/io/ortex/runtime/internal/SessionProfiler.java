package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Records where a session's time goes, as ONNX Runtime's session profiler does: one event for the session's
 * creation, one per run, and one per executed step (a node, or a partition an EP fused) with its op types, its EP
 * and the types and shapes of its inputs and outputs. {@link #write()} saves the events as a Chrome trace (the JSON
 * array format that {@code chrome://tracing} and Perfetto load). Thread safe.
 */
final class SessionProfiler {
    private final Path file;
    private final long origin;
    private final long pid = ProcessHandle.current().pid();
    private final List<String> events = new ArrayList<>();

    /**
     * Starts recording.
     *
     * @param file where {@link #write()} saves the trace
     * @param origin the {@link System#nanoTime()} that is time 0 of the trace
     */
    SessionProfiler(Path file, long origin) {
        this.file = file;
        this.origin = origin;
    }

    /**
     * Records the session's creation.
     *
     * @param start when it began, from {@link System#nanoTime()}
     * @param end when it ended
     */
    void sessionCreated(long start, long end) {
        add(event("Session", "session_initialization", start, end, ""));
    }

    /**
     * Records one run.
     *
     * @param start when it began, from {@link System#nanoTime()}
     * @param end when it ended
     */
    void run(long start, long end) {
        add(event("Session", "model_run", start, end, ""));
    }

    /**
     * Records one step of a run.
     *
     * @param step the step
     * @param start when its kernel was called, from {@link System#nanoTime()}
     * @param end when it returned
     * @param inputs its inputs
     * @param outputs its outputs, or {@code null} when it failed
     */
    void step(ExecutionPlan.Step step, long start, long end, Tensor[] inputs, Tensor[] outputs) {
        StringBuilder args = new StringBuilder();
        args.append("\"op_name\":").append(quote(step.ops()))
                .append(",\"provider\":").append(quote(step.ep()))
                .append(",\"input_type_shape\":").append(typeShapes(inputs))
                .append(",\"output_type_shape\":").append(typeShapes(outputs));
        add(event("Node", step.name() + "_kernel_time", start, end, args.toString()));
    }

    /**
     * Writes the trace, replacing the file atomically.
     *
     * @return the file written
     * @throws OrtexException when it cannot be written
     */
    Path write() {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                w.write("[\n");
                List<String> copy;
                synchronized (events) {
                    copy = new ArrayList<>(events);
                }
                for (int i = 0; i < copy.size(); i++) {
                    w.write(copy.get(i));
                    w.write(i + 1 < copy.size() ? ",\n" : "\n");
                }
                w.write("]\n");
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return file;
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the first failure is the one to report
            }
            throw new OrtexException(ErrorCode.FAIL, "cannot write the profile " + file + ": " + e.getMessage(), e);
        }
    }

    private void add(String event) {
        synchronized (events) {
            events.add(event);
        }
    }

    private String event(String category, String name, long start, long end, String args) {
        return "{\"cat\":" + quote(category) + ",\"pid\":" + pid + ",\"tid\":" + Thread.currentThread().getId()
                + ",\"dur\":" + micros(end - start) + ",\"ts\":" + micros(start - origin) + ",\"ph\":\"X\",\"name\":"
                + quote(name) + ",\"args\":{" + args + "}}";
    }

    private static long micros(long nanos) {
        return Math.max(0, nanos / 1000);
    }

    private static String typeShapes(Tensor[] values) {
        StringBuilder b = new StringBuilder("[");
        if (values != null) {
            for (Tensor t : values) {
                if (t == null) {
                    continue;
                }
                if (b.length() > 1) {
                    b.append(',');
                }
                b.append('{').append(quote(t.type().toString())).append(":[");
                for (int d = 0; d < t.rank(); d++) {
                    b.append(d > 0 ? "," : "").append(t.dim(d));
                }
                b.append("]}");
            }
        }
        return b.append(']').toString();
    }

    /**
     * Quotes a string as a JSON string literal, escaping quotes, backslashes and every control character.
     *
     * @param s the string
     * @return the literal
     */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
