package io.ortex.shell.internal;

import io.ortex.api.Environment;
import io.ortex.api.SessionOptions;
import java.util.Map;
import java.util.Set;

/**
 * The options shared by the verbs that create sessions ({@code run}, {@code test}): session configuration entries,
 * environment entries and thread count.
 */
public final class SessionSettings {
    /** The valued options this class reads. */
    public static final Set<String> VALUED = Set.of("--config", "--env", "--threads");

    private SessionSettings() {
    }

    /**
     * Creates the environment for a command.
     *
     * @param o the parsed options
     * @return a new environment
     */
    public static Environment environment(Options o) {
        Map<String, String> env = o.keyValues("--env");
        return Environment.create(env);
    }

    /**
     * Builds session options.
     *
     * @param o the parsed options
     * @return the session options
     */
    public static SessionOptions sessionOptions(Options o) {
        SessionOptions so = new SessionOptions();
        o.keyValues("--config").forEach(so::config);
        so.intraOpThreads(o.getInt("--threads", 0, 0));
        return so;
    }
}
