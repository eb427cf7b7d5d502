package io.ortex.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Options for creating a {@link Session}: configuration entries under ONNX Runtime's key strings, and thread
 * counts. Not thread safe; a session copies what it needs when it is created, so the options can be reused.
 */
public final class SessionOptions {
    /**
     * Folder against which external-data locations are resolved when the model is loaded from bytes
     * (ONNX Runtime's key). Default: none, so such a model cannot use external data.
     */
    public static final String MODEL_EXTERNAL_INITIALIZERS_FOLDER =
            "session.model_external_initializers_file_folder_path";

    /** Default number of intra-op threads: 0 means one per available processor. */
    public static final int DEFAULT_INTRA_OP_THREADS = 0;

    private final Map<String, String> config = new LinkedHashMap<>();
    private int intraOpThreads = DEFAULT_INTRA_OP_THREADS;

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
     * Gets the number of threads a single node may use.
     *
     * @return the thread count, 0 meaning one per available processor
     */
    public int intraOpThreads() {
        return intraOpThreads;
    }
}
