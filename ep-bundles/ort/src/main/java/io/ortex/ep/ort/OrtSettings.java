package io.ortex.ep.ort;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.OrtSession.SessionOptions.ExecutionMode;
import ai.onnxruntime.OrtSession.SessionOptions.OptLevel;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.EpFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ONNX Runtime session options of one EP instance, read from the EP options in the session configuration
 * ({@code ep.<lower-case EP name>.<key>}). Keys, each with its default:
 * <ul>
 *   <li>{@value #INTRA_OP_THREADS}: ONNX Runtime's intra-op threads; default the Ortex session's intra-op threads
 *       ({@link EpFactory#SESSION_INTRA_OP_THREADS}), 0 for ONNX Runtime's own choice;</li>
 *   <li>{@value #INTER_OP_THREADS}: inter-op threads, used with the parallel execution mode; default 0 (ONNX
 *       Runtime's choice);</li>
 *   <li>{@value #OPTIMIZATION_LEVEL}: {@code disable_all}, {@code basic}, {@code extended} or {@code all} (also ONNX
 *       Runtime's names {@code ORT_DISABLE_ALL}, {@code ORT_ENABLE_BASIC} ... and numbers 0, 1, 2, 99); default
 *       {@code all};</li>
 *   <li>{@value #EXECUTION_MODE}: {@code sequential} or {@code parallel}; default {@code sequential};</li>
 *   <li>{@value #EP_CONTEXT_FORMAT}: how compiled partitions are stored in EPContext nodes, {@code ort} (ONNX
 *       Runtime's ORT format) or {@code onnx}; default {@value #DEFAULT_EP_CONTEXT_FORMAT};</li>
 *   <li>any key with a dot, such as {@code session.intra_op.allow_spinning}: an ONNX Runtime session configuration
 *       entry, passed through as it is.</li>
 * </ul>
 * Other keys are options of the plugin EP a bridged device belongs to, passed to ONNX Runtime with its devices; for
 * the ONNX Runtime EP itself they are refused, naming the key. Immutable.
 */
final class OrtSettings {
    /** EP option: ONNX Runtime's intra-op threads. */
    static final String INTRA_OP_THREADS = "intra_op_num_threads";
    /** EP option: ONNX Runtime's inter-op threads. */
    static final String INTER_OP_THREADS = "inter_op_num_threads";
    /** EP option: ONNX Runtime's graph optimization level. */
    static final String OPTIMIZATION_LEVEL = "graph_optimization_level";
    /** EP option: ONNX Runtime's execution mode. */
    static final String EXECUTION_MODE = "execution_mode";
    /** EP option: the format of EPContext payloads. */
    static final String EP_CONTEXT_FORMAT = "ep_context_format";
    /** The default EPContext payload format. */
    static final String DEFAULT_EP_CONTEXT_FORMAT = "ort";

    private final String epName;
    private final int intraOpThreads;
    private final int interOpThreads;
    private final OptLevel optimizationLevel;
    private final ExecutionMode executionMode;
    private final String epContextFormat;
    private final Map<String, String> configEntries;
    private final Map<String, String> epOptions;

    private OrtSettings(String epName, int intraOpThreads, int interOpThreads, OptLevel optimizationLevel,
                        ExecutionMode executionMode, String epContextFormat, Map<String, String> configEntries,
                        Map<String, String> epOptions) {
        this.epName = epName;
        this.intraOpThreads = intraOpThreads;
        this.interOpThreads = interOpThreads;
        this.optimizationLevel = optimizationLevel;
        this.executionMode = executionMode;
        this.epContextFormat = epContextFormat;
        this.configEntries = Map.copyOf(configEntries);
        this.epOptions = Map.copyOf(epOptions);
    }

    /**
     * Reads the settings of an EP from a session configuration.
     *
     * @param epName the Ortex EP name, whose lower-case form prefixes its options
     * @param sessionConfig the session configuration
     * @param pluginOptions true when keys it does not know are the plugin EP's own options; false to refuse them
     * @return the settings
     * @throws InvalidArgumentException naming the option when a value is malformed or a key unknown
     */
    static OrtSettings read(String epName, Map<String, String> sessionConfig, boolean pluginOptions) {
        String prefix = "ep." + epName.toLowerCase(Locale.ROOT) + ".";
        int sessionThreads = (int) number(EpFactory.SESSION_INTRA_OP_THREADS,
                sessionConfig.getOrDefault(EpFactory.SESSION_INTRA_OP_THREADS, "0"));
        int intra = sessionThreads;
        int inter = 0;
        OptLevel level = OptLevel.ALL_OPT;
        ExecutionMode mode = ExecutionMode.SEQUENTIAL;
        String format = DEFAULT_EP_CONTEXT_FORMAT;
        Map<String, String> entries = new TreeMap<>();
        Map<String, String> options = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(sessionConfig).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                continue;
            }
            String key = e.getKey().substring(prefix.length());
            String value = e.getValue().trim();
            switch (key) {
                case INTRA_OP_THREADS:
                    intra = (int) number(e.getKey(), value);
                    break;
                case INTER_OP_THREADS:
                    inter = (int) number(e.getKey(), value);
                    break;
                case OPTIMIZATION_LEVEL:
                    level = level(e.getKey(), value);
                    break;
                case EXECUTION_MODE:
                    mode = mode(e.getKey(), value);
                    break;
                case EP_CONTEXT_FORMAT:
                    format = format(e.getKey(), value);
                    break;
                default:
                    if (key.contains(".")) {
                        entries.put(key, value);
                    } else if (pluginOptions) {
                        options.put(key, value);
                    } else {
                        throw new InvalidArgumentException("unknown option '" + e.getKey() + "' of " + epName
                                + "; known: " + INTRA_OP_THREADS + ", " + INTER_OP_THREADS + ", " + OPTIMIZATION_LEVEL
                                + ", " + EXECUTION_MODE + ", " + EP_CONTEXT_FORMAT
                                + ", or an ONNX Runtime session entry (a key with a dot)");
                    }
            }
        }
        return new OrtSettings(epName, intra, inter, level, mode, format, entries, options);
    }

    private static long number(String key, String value) {
        try {
            long n = Long.parseLong(value.trim());
            if (n < 0 || n > 4096) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InvalidArgumentException("option '" + key + "' must be a thread count from 0 to 4096, not '"
                    + value + "'");
        }
    }

    private static OptLevel level(String key, String value) {
        switch (value.toLowerCase(Locale.ROOT).replace("ort_", "").replace("enable_", "")) {
            case "disable_all": case "0": return OptLevel.NO_OPT;
            case "basic": case "1": return OptLevel.BASIC_OPT;
            case "extended": case "2": return OptLevel.EXTENDED_OPT;
            case "all": case "99": return OptLevel.ALL_OPT;
            default:
                throw new InvalidArgumentException("option '" + key + "' must be disable_all, basic, extended or all, "
                        + "not '" + value + "'");
        }
    }

    private static ExecutionMode mode(String key, String value) {
        switch (value.toLowerCase(Locale.ROOT).replace("ort_", "")) {
            case "sequential": return ExecutionMode.SEQUENTIAL;
            case "parallel": return ExecutionMode.PARALLEL;
            default:
                throw new InvalidArgumentException("option '" + key + "' must be sequential or parallel, not '"
                        + value + "'");
        }
    }

    private static String format(String key, String value) {
        String f = value.toLowerCase(Locale.ROOT);
        if (!f.equals("ort") && !f.equals("onnx")) {
            throw new InvalidArgumentException("option '" + key + "' must be ort or onnx, not '" + value + "'");
        }
        return f;
    }

    /**
     * Gets the format EPContext payloads are written in.
     *
     * @return {@code ort} or {@code onnx}
     */
    String epContextFormat() {
        return epContextFormat;
    }

    /**
     * Gets the graph optimization level.
     *
     * @return the level
     */
    OptLevel optimizationLevel() {
        return optimizationLevel;
    }

    /**
     * Gets the options passed to a plugin EP with its devices.
     *
     * @return the options
     */
    Map<String, String> epOptions() {
        return epOptions;
    }

    /**
     * Creates ONNX Runtime session options with these settings; the caller closes them.
     *
     * @param level the optimization level to use (compiled partitions are loaded without optimization)
     * @return the options
     * @throws OrtException when ONNX Runtime refuses a setting
     */
    OrtSession.SessionOptions sessionOptions(OptLevel level) throws OrtException {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        try {
            o.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            o.setIntraOpNumThreads(intraOpThreads);
            o.setInterOpNumThreads(interOpThreads);
            o.setOptimizationLevel(level);
            o.setExecutionMode(executionMode);
            for (Map.Entry<String, String> e : configEntries.entrySet()) {
                o.addConfigEntry(e.getKey(), e.getValue());
            }
            return o;
        } catch (OrtException | RuntimeException e) {
            o.close();
            throw e;
        }
    }

    @Override
    public String toString() {
        return epName + "[intra " + intraOpThreads + ", inter " + interOpThreads + ", " + optimizationLevel + ", "
                + executionMode + ", EPContext " + epContextFormat + ", entries " + configEntries + ", EP options "
                + epOptions + "]";
    }
}
