package io.ortex.serve.internal;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
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
 *   <li>any other key: a session configuration entry, ONNX Runtime's key strings
 *       ({@code session.graph_optimization_level}, ...).</li>
 * </ul>
 * Without the file, the session uses the runtime's defaults.
 */
final class ModelConfig {
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

    private ModelConfig() {
    }

    /**
     * Reads a model folder's configuration into session options.
     *
     * @param modelFolder the folder {@code models/<name>}
     * @param environment where EP devices come from
     * @return the options
     * @throws IllegalArgumentException naming the file and key when an entry is wrong
     */
    static SessionOptions read(Path modelFolder, Environment environment) throws IOException {
        SessionOptions options = new SessionOptions();
        Path file = modelFolder.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return options;
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        String where = file.toString();
        List<String> eps = new ArrayList<>();
        Map<String, String> epOptions = new HashMap<>();
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
        return options;
    }
}
