package io.ortex.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Options for creating a {@link Session}: configuration entries under ONNX Runtime's key strings, thread counts,
 * and how the session picks its execution providers: explicit EP devices ({@link #appendExecutionProvider}), a
 * {@linkplain #selectionPolicy policy}, or a {@linkplain #selectionDelegate delegate}. A policy or delegate is
 * ignored when EPs were appended explicitly. With none of the three, the session uses the CPU EP alone. Not thread
 * safe; a session copies what it needs when it is created, so the options can be reused.
 */
public final class SessionOptions {
    /**
     * Folder against which external-data locations are resolved when the model is loaded from bytes
     * (ONNX Runtime's key). Default: none, so such a model cannot use external data.
     */
    public static final String MODEL_EXTERNAL_INITIALIZERS_FOLDER =
            "session.model_external_initializers_file_folder_path";

    /**
     * {@code "1"} removes the CPU EP that selection adds as the fallback, so that a node no selected EP supports
     * fails session creation (ONNX Runtime's key). Default: {@code "0"}.
     */
    public static final String DISABLE_CPU_EP_FALLBACK = "session.disable_cpu_ep_fallback";

    /** Default number of intra-op threads: 0 means one per available processor. */
    public static final int DEFAULT_INTRA_OP_THREADS = 0;

    private final Map<String, String> config = new LinkedHashMap<>();
    private int intraOpThreads = DEFAULT_INTRA_OP_THREADS;
    private final List<EpAppend> appended = new ArrayList<>();
    private ExecutionProviderDevicePolicy policy;
    private EpSelectionDelegate delegate;

    /**
     * One explicit EP choice: devices of a single EP and the options for it.
     *
     * @param devices the EP devices, all of the same EP
     * @param options EP options, without the {@code ep.<name>.} prefix
     */
    public record EpAppend(List<EpDevice> devices, Map<String, String> options) {
        /**
         * Creates the choice, copying its arguments.
         *
         * @param devices the EP devices
         * @param options the EP options
         */
        public EpAppend {
            devices = List.copyOf(devices);
            options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
        }
    }

    /** Creates options with every default. */
    public SessionOptions() {
    }

    /**
     * Sets a configuration entry, replacing an earlier value of the same key.
     *
     * @param key the key, such as {@code ep.context_enable}
     * @param value the value
     * @return these options
     */
    public SessionOptions config(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.isEmpty()) {
            throw new InvalidArgumentException("a session config key must not be empty");
        }
        config.put(key, value);
        return this;
    }

    /**
     * Gets the configuration entries.
     *
     * @return an unmodifiable view, in the order they were set
     */
    public Map<String, String> config() {
        return Collections.unmodifiableMap(config);
    }

    /**
     * Gets one configuration entry.
     *
     * @param key the key
     * @param defaultValue the value when the key is not set
     * @return the value
     */
    public String configValue(String key, String defaultValue) {
        return config.getOrDefault(key, defaultValue);
    }

    /**
     * Sets the number of threads a single node may use.
     *
     * @param threads at least 1, or 0 for one per available processor
     * @return these options
     */
    public SessionOptions intraOpThreads(int threads) {
        if (threads < 0) {
            throw new InvalidArgumentException("intra-op threads must be 0 (automatic) or more, not " + threads);
        }
        this.intraOpThreads = threads;
        return this;
    }

    /**
     * Appends an EP, as ONNX Runtime's {@code SessionOptionsAppendExecutionProvider_V2}: all devices must belong to
     * the same EP, and they become one EP instance. EPs appended first get the first pick of nodes. Appending the
     * same EP twice makes session creation fail. The options become config entries
     * {@code ep.<lower-case EP name>.<key>}, over the devices' default options.
     *
     * @param devices EP devices from {@link Environment#epDevices()}, at least one, all of one EP
     * @param options EP options (keys without prefix)
     * @return these options
     * @throws InvalidArgumentException when no device is given or the devices belong to different EPs
     */
    public SessionOptions appendExecutionProvider(List<EpDevice> devices, Map<String, String> options) {
        if (devices == null || devices.isEmpty()) {
            throw new InvalidArgumentException("appendExecutionProvider needs one or more EP devices");
        }
        String ep = devices.get(0).epName();
        for (EpDevice d : devices) {
            if (!d.epName().equals(ep)) {
                throw new InvalidArgumentException("all EP devices given to appendExecutionProvider must belong to "
                        + "the same EP; got " + ep + " and " + d.epName());
            }
        }
        appended.add(new EpAppend(devices, options == null ? Map.of() : options));
        return this;
    }

    /**
     * Gets the EPs appended explicitly, in order.
     *
     * @return the appended EPs
     */
    public List<EpAppend> appendedExecutionProviders() {
        return Collections.unmodifiableList(appended);
    }

    /**
     * Sets the selection policy (and clears any delegate).
     *
     * @param policy the policy
     * @return these options
     */
    public SessionOptions selectionPolicy(ExecutionProviderDevicePolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.delegate = null;
        return this;
    }

    /**
     * Gets the selection policy.
     *
     * @return the policy, or {@code null} when none was set
     */
    public ExecutionProviderDevicePolicy selectionPolicy() {
        return policy;
    }

    /**
     * Sets a selection delegate (and sets the policy to {@link ExecutionProviderDevicePolicy#DEFAULT}).
     *
     * @param delegate the delegate
     * @return these options
     */
    public SessionOptions selectionDelegate(EpSelectionDelegate delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.policy = ExecutionProviderDevicePolicy.DEFAULT;
        return this;
    }

    /**
     * Gets the selection delegate.
     *
     * @return the delegate, or {@code null} when none was set
     */
    public EpSelectionDelegate selectionDelegate() {
        return delegate;
    }

    /**
     * Gets the number of threads a single node may use.
     *
     * @return the thread count, 0 meaning one per available processor
     */
    public int intraOpThreads() {
        return intraOpThreads;
    }
}
