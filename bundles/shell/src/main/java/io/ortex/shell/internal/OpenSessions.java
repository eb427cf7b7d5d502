package io.ortex.shell.internal;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sessions a shell keeps open between commands ({@code ortex:open}, {@code ortex:sessions}, {@code ortex:run
 * ID}, {@code ortex:close}). While open, a session holds its EPs: removing one of those EPs drains until the session
 * is closed. Thread safe; {@link #close()} closes every session left.
 */
public final class OpenSessions implements AutoCloseable {
    /** The flags of {@code open}. */
    public static final Set<String> FLAGS = Set.of("--verbose");
    /** The valued options of {@code open}: the EP options ({@code --env} and {@code --register} are refused). */
    public static final Set<String> VALUED = SessionSettings.VALUED;

    private record Entry(Session session, Instant opened, AtomicLong runs) {
    }

    private final Map<String, Entry> sessions = new LinkedHashMap<>();

    /**
     * Opens a session on a model with the EP options of {@code run}, in a shared environment.
     *
     * @param env the shared environment; the session outlives this call
     * @param o the parsed options; the one positional argument is the model
     * @return the new session's id
     */
    public String open(Environment env, Options o) {
        if (o.positional().size() != 1) {
            throw new UsageException("open needs exactly one MODEL, got " + o.positional().size());
        }
        for (String option : List.of("--env", "--register")) {
            if (o.has(option)) {
                throw new UsageException(option + " is refused for an open session: configure the runtime through "
                        + "ConfigAdmin and drop EP jars into deploy/");
            }
        }
        Session s = env.createSession(java.nio.file.Path.of(o.positional().get(0)),
                SessionSettings.sessionOptions(o, env));
        synchronized (this) {
            sessions.put(s.id(), new Entry(s, Instant.now(), new AtomicLong()));
        }
        return s.id();
    }

    /**
     * Runs an open session with the options of {@code run} and counts its runs.
     *
     * @param o the parsed options; the one positional argument is the session's id
     * @param out where the report goes
     * @return the exit status
     */
    public int run(Options o, PrintStream out) {
        Entry e = entry(o.positional().get(0));
        int status = RunCommand.runOpen(e.session(), o, out);
        e.runs().addAndGet(o.getInt("--repeat", 1, 1) + o.getInt("--warmup", 0, 0));
        return status;
    }

    /**
     * Tells whether an id names an open session.
     *
     * @param id the text to check
     * @return true when a session with that id is open
     */
    public synchronized boolean isOpen(String id) {
        return sessions.containsKey(id);
    }

    /**
     * Prints the open sessions as a table: id, model, EPs in priority order, runs, age.
     *
     * @param out where the table goes
     */
    public void list(PrintStream out) {
        List<Entry> entries;
        synchronized (this) {
            entries = new ArrayList<>(sessions.values());
        }
        String format = "%-6s %-40s %-32s %6s %8s%n";
        out.printf(format, "ID", "MODEL", "EPS", "RUNS", "AGE");
        Instant now = Instant.now();
        for (Entry e : entries) {
            out.printf(format, Table.fit(e.session().id(), 6), Table.fit(e.session().modelSource(), 40),
                    Table.fitStart(String.join(",", e.session().executionProviders()), 32), e.runs().get(),
                    age(Duration.between(e.opened(), now)));
        }
    }

    /**
     * Closes an open session, releasing its EPs.
     *
     * @param id the session's id
     */
    public void close(String id) {
        Entry e;
        synchronized (this) {
            e = entry(id);
            sessions.remove(id);
        }
        e.session().close();
    }

    private synchronized Entry entry(String id) {
        Entry e = sessions.get(id);
        if (e == null) {
            throw new UsageException("no open session '" + id + "'; open: " + sessions.keySet());
        }
        return e;
    }

    static String age(Duration d) {
        long s = d.toSeconds();
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m" + s % 60 + "s";
        }
        return s / 3600 + "h" + s / 60 % 60 + "m";
    }

    /** Closes every session still open. */
    @Override
    public void close() {
        List<Entry> entries;
        synchronized (this) {
            entries = new ArrayList<>(sessions.values());
            sessions.clear();
        }
        for (Entry e : entries) {
            e.session().close();
        }
    }
}
