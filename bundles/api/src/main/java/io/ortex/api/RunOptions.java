package io.ortex.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Options of one {@link Session#run(Map, java.util.Collection, RunOptions) run}: configuration entries with ONNX
 * Runtime's key strings ({@code OrtRunOptions} and its {@code AddRunConfigEntry}). EPs see them in
 * {@link io.ortex.api.spi.ExecutionProvider#onRunStart} and {@link io.ortex.api.spi.ExecutionProvider#onRunEnd}.
 * Not thread safe while being changed; a run copies the entries.
 */
public final class RunOptions {
    /**
     * Which captured graph a run uses, for an EP that captures and replays graphs (ONNX Runtime's
     * {@code gpu_graph_id}): a number, 0 by default; {@code -1} runs without capturing or replaying.
     */
    public static final String GRAPH_ID = "gpu_graph_id";
    /**
     * The most runs one call makes while an EP captures its graph, as ONNX Runtime bounds its warm-up runs; a graph
     * still not captured then is reported and run normally from then on.
     */
    public static final int CAPTURE_RUNS = 8;
    /**
     * Set to {@code 1} to tell stream-aware EPs not to synchronize their streams when the run ends (ONNX Runtime's
     * {@code disable_synchronize_execution_providers}): they get {@code false} as
     * {@link io.ortex.api.spi.ExecutionProvider#onRunEnd(Map, boolean)}'s flag. The runtime still waits for the work
     * the run queued before it gives the caller the outputs and frees the run's device memory.
     */
    public static final String DISABLE_SYNCHRONIZE_EXECUTION_PROVIDERS = "disable_synchronize_execution_providers";

    private final Map<String, String> config = new LinkedHashMap<>();

    /** Creates options without entries. */
    public RunOptions() {
    }

    /**
     * Sets a configuration entry.
     *
     * @param key the key, such as {@link #GRAPH_ID}
     * @param value the value
     * @return these options
     */
    public RunOptions config(String key, String value) {
        config.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * Sets the captured graph the run uses ({@link #GRAPH_ID}).
     *
     * @param id the graph id, or -1 to run without capturing or replaying
     * @return these options
     */
    public RunOptions graphId(int id) {
        return config(GRAPH_ID, Integer.toString(id));
    }

    /**
     * Gets the configuration entries.
     *
     * @return an unmodifiable view, in the order set
     */
    public Map<String, String> config() {
        return Collections.unmodifiableMap(config);
    }
}
