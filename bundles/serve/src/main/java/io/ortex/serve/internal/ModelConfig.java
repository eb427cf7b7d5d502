package io.ortex.serve.internal;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A model's optional configuration, {@code models/<name>/config.properties}, turned into session options. Keys:
 * <ul>
 *   <li>{@value #POLICY}: an EP selection policy ({@code DEFAULT}, {@code PREFER_CPU}, {@code PREFER_NPU},
 *       {@code PREFER_GPU}, {@code MAX_PERFORMANCE}, {@code MAX_EFFICIENCY}, {@code MIN_OVERALL_POWER});</li>
 *   <li>{@value #EP}: EP names in priority order, comma-separated (every device of each is appended; the policy is
 *       then ignored, as ONNX Runtime does);</li>
 *   <li>{@value #EP_OPTION_PREFIX}{@code KEY}: an EP option given to the EPs of {@value #EP};</li>
 *   <li>{@value #THREADS}: intra-op threads (0 for one per core);</li>
 *   <li>{@value #MAX_BATCH_SIZE}: dynamic batching: concurrent requests are merged along the first dimension into
 *       one run of at most this many rows (0 or 1, the default, turns it off); see {@link Batcher};</li>
 *   <li>{@value #MAX_QUEUE_DELAY_US}: how long, in microseconds, a request waits for others to merge with
 *       (default {@value #MAX_QUEUE_DELAY_US_DEFAULT}, at most {@value #MAX_QUEUE_DELAY_US_LIMIT});</li>
 *   <li>{@value #MAX_QUEUE_SIZE}: how many requests may wait for a batch; one more is refused with 503 (default
 *       {@value #MAX_QUEUE_SIZE_DEFAULT});</li>
 *   <li>any other key: a session configuration entry, ONNX Runtime's key strings
 *       ({@code session.graph_optimization_level}, ...).</li>
 * </ul>
 * Without the file, the session uses the runtime's defaults and requests are not batched.
 *
 * @param options the session options
 * @param batching the dynamic batching settings
 */
record ModelConfig(SessionOptions options, Batching batching) {
    /** The file's name in the model's folder. */
    static final String FILE = "config.properties";
    /** The selection policy. */
    static final String POLICY = "policy";
    /** The explicit EPs. */
    static final String EP = "ep";
    /** The prefix of EP options. */
    static final String EP_OPTION_PREFIX = "ep_option.";
    /** Intra-op threads. */
    static final String THREADS = "threads";
    /** The largest batch, in rows of the first dimension. */
    static final String MAX_BATCH_SIZE = "max_batch_size";
    /** How long a request waits for others to merge with, in microseconds. */
    static final String MAX_QUEUE_DELAY_US = "max_queue_delay_us";
    /** The default delay: none, a batch takes what is queued when the model is free. */
    static final long MAX_QUEUE_DELAY_US_DEFAULT = 0;
    /** The longest delay accepted (10 s): more is surely a unit mistake. */
    static final long MAX_QUEUE_DELAY_US_LIMIT = 10_000_000;
    /** How many requests may wait for a batch. */
    static final String MAX_QUEUE_SIZE = "max_queue_size";
    /** The default queue bound. */
    static final int MAX_QUEUE_SIZE_DEFAULT = 1024;

    /**
     * Dynamic batching settings.
     *
     * @param maxBatchSize the largest batch in rows; 1 or less turns batching off
     * @param maxQueueDelayMicros how long a request waits for others, in microseconds
     * @param maxQueueSize how many requests may wait
     */
    record Batching(int maxBatchSize, long maxQueueDelayMicros, int maxQueueSize) {
        /** No batching. */
        static final Batching OFF = new Batching(0, MAX_QUEUE_DELAY_US_DEFAULT, MAX_QUEUE_SIZE_DEFAULT);

        /**
         * Tells whether requests are to be batched.
         *
         * @return true when the largest batch is more than one row
         */
        boolean enabled() {
            return maxBatchSize > 1;
        }
    }

    /**
     * Reads a model folder's configuration.
     *
     * @param modelFolder the folder {@code models/<name>}
     * @param environment where EP devices come from
     * @return the session options and batching settings
     * @throws IllegalArgumentException naming the file and key when an entry is wrong
     */
    static ModelConfig read(Path modelFolder, Environment environment) throws IOException {
        SessionOptions options = new SessionOptions();
        Path file = modelFolder.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return new ModelConfig(options, Batching.OFF);
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        String where = file.toString();
        List<String> eps = new ArrayList<>();
        Map<String, String> epOptions = new HashMap<>();
        int maxBatch = Batching.OFF.maxBatchSize();
        long delay = MAX_QUEUE_DELAY_US_DEFAULT;
        int queue = MAX_QUEUE_SIZE_DEFAULT;
        for (String key : p.stringPropertyNames()) {
            String value = p.getProperty(key).trim();
            if (key.equals(POLICY)) {
                try {
                    options.selectionPolicy(ExecutionProviderDevicePolicy.valueOf(value));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(where + ": policy " + Names.quote(value) + " is not one of "
                            + Arrays.toString(ExecutionProviderDevicePolicy.values()));
                }
            } else if (key.equals(EP)) {
                for (String ep : value.split(",")) {
                    if (!ep.isBlank()) {
                        eps.add(ep.trim());
                    }
                }
            } else if (key.startsWith(EP_OPTION_PREFIX)) {
                epOptions.put(key.substring(EP_OPTION_PREFIX.length()), value);
            } else if (key.equals(THREADS)) {
                try {
                    options.intraOpThreads(Integer.parseInt(value));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(where + ": threads " + Names.quote(value)
                            + " is not a thread count (0 for one per core)");
                }
            } else if (key.equals(MAX_BATCH_SIZE)) {
                maxBatch = (int) number(where, key, value, 0, Tensor.MAX_ELEMENTS, "a row count (0 or 1: no batching)");
            } else if (key.equals(MAX_QUEUE_DELAY_US)) {
                delay = number(where, key, value, 0, MAX_QUEUE_DELAY_US_LIMIT, "microseconds from 0 to "
                        + MAX_QUEUE_DELAY_US_LIMIT);
            } else if (key.equals(MAX_QUEUE_SIZE)) {
                queue = (int) number(where, key, value, 1, 1 << 20, "a request count from 1 to " + (1 << 20));
            } else {
                options.config(key, value);
            }
        }
        for (String ep : eps) {
            List<EpDevice> devices = environment.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
            if (devices.isEmpty()) {
                throw new IllegalArgumentException(where + ": ep " + Names.quote(ep) + " has no device here");
            }
            options.appendExecutionProvider(devices, epOptions);
        }
        return new ModelConfig(options, new Batching(maxBatch, delay, queue));
    }

    private static long number(String where, String key, String value, long min, long max, String what) {
        try {
            long n = Long.parseLong(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(where + ": " + key + " " + Names.quote(value) + " is not " + what);
    }
}
