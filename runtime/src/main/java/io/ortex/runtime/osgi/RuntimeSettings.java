package io.ortex.runtime.osgi;

import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.SessionOptions;
import io.ortex.runtime.internal.discovery.DiscoveryConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The runtime's configuration in a framework, parsed from the ConfigAdmin properties of PID {@value #PID}: every key
 * is a constant here with its default beside it ({@link RuntimeConfiguration} describes them for metatype). Values
 * may be typed or strings (as a {@code .cfg} file gives them); lists may be arrays, collections or comma-separated
 * strings. Immutable.
 *
 * @param defaultPolicy the policy of sessions that choose no EP, policy or delegate; {@code null} for none
 * @param drainLimit how long an EP removal waits for the sessions holding the EP
 * @param failAtLimit whether those sessions are failed at the limit ({@value #OUTCOME_FAIL}) rather than waited for
 * @param virtualGrants the EP libraries (bundle symbolic names) allowed to offer virtual devices
 * @param allowVirtualDevices whether every EP library may offer virtual devices
 * @param intraOpThreads the intra-op threads of sessions that leave them automatic; 0 for one per processor
 * @param environmentConfig the discovery entries ({@code ortex.discovery.*}, {@code ortex.device.*}) for the
 *                          environment, read when the runtime starts
 */
public record RuntimeSettings(ExecutionProviderDevicePolicy defaultPolicy, Duration drainLimit, boolean failAtLimit,
                              Set<String> virtualGrants, boolean allowVirtualDevices, int intraOpThreads,
                              Map<String, String> environmentConfig) {
    /** The configuration PID of the runtime. */
    public static final String PID = "io.ortex.runtime";

    /** Key: the default selection policy (an {@link ExecutionProviderDevicePolicy} name). Default: none. */
    public static final String DEFAULT_POLICY = "default.policy";

    /** Key: the drain limit in seconds. Default {@value #DEFAULT_DRAIN_LIMIT_SECONDS}. */
    public static final String DRAIN_LIMIT_SECONDS = "drain.limit.seconds";
    /** Default of {@link #DRAIN_LIMIT_SECONDS}. */
    public static final long DEFAULT_DRAIN_LIMIT_SECONDS = 30;

    /** Key: the outcome at the drain limit, {@value #OUTCOME_FAIL} or {@value #OUTCOME_WAIT}. Default fail. */
    public static final String DRAIN_OUTCOME = "drain.outcome";
    /** Drain outcome: the sessions still holding the EP fail and the EP is released. */
    public static final String OUTCOME_FAIL = "fail";
    /** Drain outcome: keep waiting, logging the holders each time the limit passes. */
    public static final String OUTCOME_WAIT = "wait";

    /** Key: the bundle symbolic names allowed to offer virtual devices. Default: none. */
    public static final String VIRTUAL_GRANTS = "virtual.grants";

    /** Key: {@code true} lets every EP bundle offer virtual devices (ONNX Runtime's key). Default false. */
    public static final String ALLOW_VIRTUAL_DEVICES = Environment.ALLOW_VIRTUAL_DEVICES;

    /** Key: intra-op threads of sessions that leave them automatic. Default 0 (one per processor). */
    public static final String INTRA_OP_THREADS = "intra.op.threads";

    /** The prefix of the discovery keys passed to the environment (see {@link DiscoveryConfig}). */
    public static final String DISCOVERY_PREFIX = "ortex.discovery.";

    /** The settings with no configuration at all. */
    public static final RuntimeSettings DEFAULTS = parse(Map.of());

    /**
     * Copies the collections.
     *
     * @param defaultPolicy the default policy or {@code null}
     * @param drainLimit the drain limit
     * @param failAtLimit the outcome
     * @param virtualGrants the granted libraries
     * @param allowVirtualDevices the grant for all
     * @param intraOpThreads the default intra-op threads
     * @param environmentConfig the discovery entries
     */
    public RuntimeSettings {
        virtualGrants = Set.copyOf(virtualGrants);
        environmentConfig = Map.copyOf(environmentConfig);
    }

    /**
     * Parses ConfigAdmin properties; unknown keys are ignored.
     *
     * @param properties the component properties
     * @return the settings
     * @throws InvalidArgumentException naming the key when a value is malformed
     */
    public static RuntimeSettings parse(Map<String, ?> properties) {
        String policyName = string(properties, DEFAULT_POLICY, "").trim();
        ExecutionProviderDevicePolicy policy = null;
        if (!policyName.isEmpty()) {
            try {
                policy = ExecutionProviderDevicePolicy.valueOf(policyName.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new InvalidArgumentException(PID + ": " + DEFAULT_POLICY + " '" + policyName + "' is not one of "
                        + List.of(ExecutionProviderDevicePolicy.values()));
            }
        }
        long limit = number(properties, DRAIN_LIMIT_SECONDS, DEFAULT_DRAIN_LIMIT_SECONDS);
        if (limit < 1) {
            throw new InvalidArgumentException(PID + ": " + DRAIN_LIMIT_SECONDS + " must be at least 1, not " + limit);
        }
        String outcome = string(properties, DRAIN_OUTCOME, OUTCOME_FAIL).trim().toLowerCase(Locale.ROOT);
        if (!outcome.equals(OUTCOME_FAIL) && !outcome.equals(OUTCOME_WAIT)) {
            throw new InvalidArgumentException(PID + ": " + DRAIN_OUTCOME + " must be '" + OUTCOME_FAIL + "' or '"
                    + OUTCOME_WAIT + "', not '" + outcome + "'");
        }
        long threads = number(properties, INTRA_OP_THREADS, 0);
        if (threads < 0 || threads > Integer.MAX_VALUE) {
            throw new InvalidArgumentException(PID + ": " + INTRA_OP_THREADS + " must be 0 or more, not " + threads);
        }
        String allow = string(properties, ALLOW_VIRTUAL_DEVICES, "false").trim();
        Map<String, String> env = new TreeMap<>();
        properties.forEach((k, v) -> {
            if ((k.startsWith(DISCOVERY_PREFIX) || k.startsWith(DiscoveryConfig.DEVICE_PREFIX)) && v != null) {
                env.put(k, String.valueOf(v));
            }
        });
        return new RuntimeSettings(policy, Duration.ofSeconds(limit), outcome.equals(OUTCOME_FAIL),
                list(properties.get(VIRTUAL_GRANTS)), allow.equals("1") || allow.equalsIgnoreCase("true"),
                (int) threads, env);
    }

    private static String string(Map<String, ?> p, String key, String def) {
        Object v = p.get(key);
        return v == null ? def : String.valueOf(v);
    }

    private static long number(Map<String, ?> p, String key, long def) {
        Object v = p.get(key);
        if (v == null || v.toString().isBlank()) {
            return def;
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new InvalidArgumentException(PID + ": " + key + " must be a whole number, not '" + v + "'");
        }
    }

    private static Set<String> list(Object v) {
        List<Object> items = new ArrayList<>();
        if (v instanceof Object[] a) {
            items.addAll(List.of(a));
        } else if (v instanceof Collection<?> c) {
            items.addAll(c);
        } else if (v != null) {
            items.add(v);
        }
        Set<String> out = new LinkedHashSet<>();
        for (Object item : items) {
            for (String s : String.valueOf(item).split(",")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
        }
        return out;
    }

    /**
     * Whether an EP library may offer virtual devices.
     *
     * @param library the registration name (bundle symbolic name)
     * @return true when all are allowed or this one is granted
     */
    public boolean grantsVirtualDevices(String library) {
        return allowVirtualDevices || virtualGrants.contains(library);
    }

    /**
     * Applies the defaults to a session's options: the default policy when the options name no EP, policy or
     * delegate, and the default intra-op threads when they leave them automatic. The caller's options are never
     * changed; a copy is made when a default applies.
     *
     * @param options the caller's options
     * @return the options to create the session with
     */
    public SessionOptions applyTo(SessionOptions options) {
        boolean policy = defaultPolicy != null && options.appendedExecutionProviders().isEmpty()
                && options.selectionPolicy() == null && options.selectionDelegate() == null;
        boolean threads = intraOpThreads > 0 && options.intraOpThreads() == SessionOptions.DEFAULT_INTRA_OP_THREADS;
        if (!policy && !threads) {
            return options;
        }
        SessionOptions copy = options.copy();
        if (threads) {
            copy.intraOpThreads(intraOpThreads);
        }
        if (policy) {
            copy.selectionPolicy(defaultPolicy);
        }
        return copy;
    }
}
