package io.ortex.api;

import java.util.Objects;

/**
 * One copy of a value between two memories that a session's plan holds, as {@link Session#valueCopies()} reports it:
 * where a value produced (or fed) in one memory is read by an EP working in another, the runtime copies it once per
 * run and memory it is read in; an initializer an EP reads in its own memory is copied once when the session is
 * created; a graph output produced outside host memory is copied to host before it reaches the caller.
 *
 * @param value the value's name
 * @param from the memory it is in, such as {@code Cpu} or {@code ExampleNpu}
 * @param to the memory it is copied to
 * @param kind when the copy is made
 * @param count how many copies were made so far
 * @param bytes how many bytes those copies moved
 */
public record ValueCopy(String value, String from, String to, Kind kind, long count, long bytes) {
    /** When a copy is made. */
    public enum Kind {
        /** Once, when the session is created: an initializer copied into the memory of the EP that reads it. */
        INITIALIZER,
        /** In each run, before the first step that reads the value in the target memory. */
        RUN,
        /** In each run, a graph output copied to host memory before the caller receives it. */
        OUTPUT
    }

    /**
     * Creates a copy record.
     *
     * @param value the value's name
     * @param from the source memory
     * @param to the target memory
     * @param kind when the copy is made
     * @param count the copies made so far
     * @param bytes the bytes moved so far
     */
    public ValueCopy {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(kind, "kind");
    }

    /** Gives {@code value: from -> to (kind, count x, bytes B)}. */
    @Override
    public String toString() {
        return value + ": " + from + " -> " + to + " (" + kind.name().toLowerCase(java.util.Locale.ROOT) + ", "
                + count + "x, " + bytes + " B)";
    }
}
