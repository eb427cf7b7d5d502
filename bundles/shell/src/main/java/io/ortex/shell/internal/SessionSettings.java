package io.ortex.shell.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.SessionOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options shared by the verbs that create environments and sessions: environment entries ({@code --env}), EP
 * libraries to register ({@code --register NAME=JAR}), session configuration ({@code --config}), thread count, and
 * EP selection by name ({@code --ep}, repeatable, in priority order) or by policy ({@code --policy}).
 */
public final class SessionSettings {
    /** The valued options that shape the environment. */
    public static final Set<String> ENVIRONMENT = Set.of("--env", "--register");
    /** The valued options this class reads. */
    public static final Set<String> VALUED = Set.of("--config", "--env", "--register", "--threads", "--ep",
            "--policy");

    private static final ThreadLocal<Environment> SHARED = new ThreadLocal<>();

    private SessionSettings() {
    }

    /**
     * Runs a command with a shared environment, such as the OSGi {@code Environment} service: while it runs on this
     * thread, {@link #environment(Options)} gives a view of that environment instead of creating one.
     *
     * @param shared the environment the command uses and must not close
     * @param command the command
     * @param <T> what the command returns
     * @return what the command returned
     * @throws Exception what the command threw
     */
    public static <T> T withEnvironment(Environment shared, java.util.concurrent.Callable<T> command) throws Exception {
        Environment before = SHARED.get();
        SHARED.set(shared);
        try {
            return command.call();
        } finally {
            if (before == null) {
                SHARED.remove();
            } else {
                SHARED.set(before);
            }
        }
    }

    /**
     * Gives the environment for a command and registers the libraries given with {@code --register}: a new one,
     * with the entries of {@code --env}; or, inside {@link #withEnvironment}, a view of the shared one whose close
     * unregisters those libraries. A shared environment takes {@code --env} only when it already has those entries:
     * the framework the launcher starts for one verb is configured with that verb's {@code --env} entries, while the
     * interactive shell's runtime, shared by every command, is configured through ConfigAdmin (PID
     * {@code io.ortex.runtime}; {@code ortex:policy} for the default policy), so there {@code --env} is refused.
     *
     * @param o the parsed options
     * @return the environment, which the caller closes
     */
    public static Environment environment(Options o) {
        Map<String, String> env = o.keyValues("--env");
        Map<String, String> libraries = o.keyValues("--register");
        Environment shared = SHARED.get();
        if (shared != null) {
            Map<String, String> applied = shared.config();
            for (Map.Entry<String, String> e : env.entrySet()) {
                if (!e.getValue().equals(applied.get(e.getKey()))) {
                    throw new UsageException("--env " + e.getKey() + ": the shell's runtime is shared by every "
                            + "command and configured through ConfigAdmin (PID io.ortex.runtime: "
                            + "conf/io.ortex.runtime.cfg or a .cfg in deploy/; ortex:policy sets the default policy); "
                            + "--env applies to one verb run as 'ortex VERB ... --env KEY=VALUE'");
                }
            }
        }
        Environment e = shared != null ? new SharedEnvironment(shared) : Environment.create(env);
        try {
            libraries.forEach((name, jar) -> e.registerLibrary(name, Path.of(jar)));
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
        return e;
    }

    /**
     * Gives an environment for a command that sets its own entries: inside {@link #withEnvironment}, a view of the
     * shared environment (whose configuration comes from ConfigAdmin, so the entries are not applied); otherwise a
     * new environment with the entries.
     *
     * @param config the entries of a new environment
     * @return the environment, which the caller closes
     */
    public static Environment environmentOr(Map<String, String> config) {
        Environment shared = SHARED.get();
        return shared != null ? new SharedEnvironment(shared) : Environment.create(config);
    }

    /**
     * Builds session options: configuration, threads, and the EPs by name or the policy.
     *
     * @param o the parsed options
     * @param env the environment whose EP devices {@code --ep} names
     * @return the session options
     */
    public static SessionOptions sessionOptions(Options o, Environment env) {
        SessionOptions so = new SessionOptions();
        o.keyValues("--config").forEach(so::config);
        so.intraOpThreads(o.getInt("--threads", 0, 0));
        if (o.has("--ep") && o.has("--policy")) {
            throw new UsageException("give either --ep or --policy, not both");
        }
        for (String name : o.all("--ep")) {
            List<EpDevice> devices = new ArrayList<>();
            for (EpDevice d : env.epDevices()) {
                if (d.epName().equalsIgnoreCase(name)) {
                    devices.add(d);
                }
            }
            if (devices.isEmpty()) {
                Set<String> known = new TreeSet<>();
                env.epDevices().forEach(d -> known.add(d.epName()));
                throw new UsageException("--ep " + name + ": no such EP device; available EPs: " + known);
            }
            so.appendExecutionProvider(devices, Map.of());
        }
        if (o.has("--policy")) {
            so.selectionPolicy(policy(o.get("--policy", "")));
        }
        return so;
    }

    /**
     * Parses a policy name, ignoring case and accepting {@code -} for {@code _}.
     *
     * @param text the name, such as {@code prefer_npu}
     * @return the policy
     */
    public static ExecutionProviderDevicePolicy policy(String text) {
        String name = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (ExecutionProviderDevicePolicy p : ExecutionProviderDevicePolicy.values()) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new UsageException("--policy " + text + ": unknown policy; use one of "
                + Arrays.toString(ExecutionProviderDevicePolicy.values()));
    }
}
