package io.ortex.shell.osgi;

import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.shell.internal.Failures;
import io.ortex.shell.internal.SessionSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Dictionary;
import java.util.Hashtable;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo command {@code ortex:policy [P]}: shows or sets the runtime's default selection policy, the key
 * {@value #KEY} of the ConfigAdmin PID {@value #PID}. The runtime applies a change at once to new sessions. A
 * component of its own so that the other commands work without ConfigAdmin.
 */
@Component(service = PolicyShellCommand.class, immediate = true, property = {
    "osgi.command.scope=ortex",
    "osgi.command.function=policy"
})
public final class PolicyShellCommand {
    /** The runtime's configuration PID. */
    static final String PID = "io.ortex.runtime";
    /** The key of the default policy in that configuration. */
    static final String KEY = "default.policy";

    private final ConfigurationAdmin configAdmin;

    /**
     * Creates the component.
     *
     * @param configAdmin ConfigAdmin
     */
    @Activate
    public PolicyShellCommand(@Reference ConfigurationAdmin configAdmin) {
        this.configAdmin = configAdmin;
    }

    /** Prints the default policy. */
    @Descriptor("shows the default selection policy of sessions that choose no EP (ConfigAdmin " + PID + ", "
            + KEY + ")")
    public void policy() {
        Failures.guard(false, System.err, () -> {
            Object v = properties(configuration()).get(KEY);
            System.out.println(v == null || v.toString().isBlank() ? "none (sessions use DEFAULT)" : v);
            return 0;
        });
    }

    /**
     * Sets the default policy.
     *
     * @param policy a policy name, or {@code none} to remove it
     */
    @Descriptor("sets the default selection policy of sessions that choose no EP; 'none' removes it")
    public void policy(@Descriptor("DEFAULT, PREFER_CPU, PREFER_NPU, PREFER_GPU, MAX_PERFORMANCE, MAX_EFFICIENCY, "
            + "MIN_OVERALL_POWER or none") String policy) {
        Failures.guard(false, System.err, () -> {
            Configuration c = configuration();
            Dictionary<String, Object> p = properties(c);
            if (policy.equalsIgnoreCase("none")) {
                p.remove(KEY);
            } else {
                ExecutionProviderDevicePolicy chosen = SessionSettings.policy(policy);
                p.put(KEY, chosen.name());
            }
            c.update(p);
            System.out.println(KEY + " = " + (p.get(KEY) == null ? "none" : p.get(KEY)));
            return 0;
        });
    }

    private Configuration configuration() {
        try {
            return configAdmin.getConfiguration(PID, "?");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Dictionary<String, Object> properties(Configuration c) {
        Dictionary<String, Object> p = c.getProperties();
        return p == null ? new Hashtable<>() : p;
    }
}
