package io.ortex.api;

import java.util.Map;

/**
 * The limits that keep a model or a run from taking more than the host can give: checked against what a model or a
 * kernel declares before anything is allocated, so that a hostile or broken model gets an error that names the
 * limit rather than an {@link OutOfMemoryError}, a hang or a crash.
 *
 * <p>Each limit is a configuration key with its default beside it. A session takes each key from its
 * {@link SessionOptions#config} entries, else from the environment's configuration ({@link Environment#create(Map)};
 * in an OSGi framework, ConfigAdmin PID {@code io.ortex.runtime}), else the default. A value of {@code 0} means the
 * default. A model beyond a limit is refused with an {@link InvalidModelException}, a run with a
 * {@link ResourceLimitException}; both name the key.
 *
 * @param modelBytes the largest model file (or byte array) read, in bytes; external data is not counted here
 * @param tensorElements the most elements one tensor may hold: an initializer, an input read from a file, or a
 *     kernel's output
 * @param initializerBytes the most bytes all initializers of a model may take together, inline and external
 * @param nestingDepth the deepest nesting of subgraphs (If, Loop, Scan bodies)
 * @param graphNodes the most nodes one graph may hold
 * @param stringLength the longest string a model may hold, in characters: names, string attributes (not the payload
 *     of an EPContext node), string tensor elements and metadata
 * @param runBytes the most bytes the tensors a run holds at one time may take, including the one about to be
 *     allocated
 */
public record ResourceLimits(long modelBytes, long tensorElements, long initializerBytes, int nestingDepth,
                             long graphNodes, long stringLength, long runBytes) {
    /** The prefix of every limit key. */
    public static final String PREFIX = "ortex.limits.";

    /** Key: the largest model in bytes. Default {@value #DEFAULT_MODEL_BYTES} (protobuf's limit, 2 GiB - 1). */
    public static final String MODEL_BYTES = PREFIX + "model_bytes";
    /** Default of {@link #MODEL_BYTES}. */
    public static final long DEFAULT_MODEL_BYTES = Integer.MAX_VALUE;

    /** Key: the most elements of one tensor. Default {@value #DEFAULT_TENSOR_ELEMENTS} (the largest Java array). */
    public static final String TENSOR_ELEMENTS = PREFIX + "tensor_elements";
    /** Default of {@link #TENSOR_ELEMENTS}: {@link Tensor#MAX_ELEMENTS}. */
    public static final long DEFAULT_TENSOR_ELEMENTS = Tensor.MAX_ELEMENTS;

    /** Key: the most bytes of all initializers of a model. Default: the JVM's maximum heap. */
    public static final String INITIALIZER_BYTES = PREFIX + "initializer_bytes";

    /** Key: the deepest nesting of subgraphs. Default {@value #DEFAULT_NESTING_DEPTH}. */
    public static final String NESTING_DEPTH = PREFIX + "nesting_depth";
    /** Default of {@link #NESTING_DEPTH}. */
    public static final int DEFAULT_NESTING_DEPTH = 32;

    /** Key: the most nodes of one graph. Default {@value #DEFAULT_GRAPH_NODES}. */
    public static final String GRAPH_NODES = PREFIX + "graph_nodes";
    /** Default of {@link #GRAPH_NODES}. */
    public static final long DEFAULT_GRAPH_NODES = 1_000_000;

    /** Key: the longest string of a model, in characters. Default {@value #DEFAULT_STRING_LENGTH} (1 Mi). */
    public static final String STRING_LENGTH = PREFIX + "string_length";
    /** Default of {@link #STRING_LENGTH}. */
    public static final long DEFAULT_STRING_LENGTH = 1 << 20;

    /** Key: the most bytes a run's tensors may take at one time. Default: the JVM's maximum heap. */
    public static final String RUN_BYTES = PREFIX + "run_bytes";

    /** The limits with every default. */
    public static final ResourceLimits DEFAULTS = of(Map.of(), Map.of());

    /**
     * Checks the values.
     *
     * @param modelBytes the largest model read, in bytes
     * @param tensorElements the most elements of one tensor
     * @param initializerBytes the most bytes of all initializers of a model
     * @param nestingDepth the deepest nesting of subgraphs
     * @param graphNodes the most nodes of one graph
     * @param stringLength the longest string of a model, in characters
     * @param runBytes the most bytes a run's tensors may take at one time
     * @throws InvalidArgumentException when a value is not positive
     */
    public ResourceLimits {
        if (modelBytes <= 0 || tensorElements <= 0 || initializerBytes <= 0 || nestingDepth <= 0 || graphNodes <= 0
                || stringLength <= 0 || runBytes <= 0) {
            throw new InvalidArgumentException("resource limits must be positive");
        }
    }

    /**
     * Reads the limits of a session: each key from the session's entries, else from the environment's, else its
     * default.
     *
     * @param session the session configuration
     * @param environment the environment configuration
     * @return the limits
     * @throws InvalidArgumentException when a value is not a whole number of 0 or more, naming the key
     */
    public static ResourceLimits of(Map<String, String> session, Map<String, String> environment) {
        long heap = Runtime.getRuntime().maxMemory();
        return new ResourceLimits(
                value(session, environment, MODEL_BYTES, DEFAULT_MODEL_BYTES),
                Math.min(value(session, environment, TENSOR_ELEMENTS, DEFAULT_TENSOR_ELEMENTS), Tensor.MAX_ELEMENTS),
                value(session, environment, INITIALIZER_BYTES, heap),
                (int) Math.min(value(session, environment, NESTING_DEPTH, DEFAULT_NESTING_DEPTH), 10_000),
                value(session, environment, GRAPH_NODES, DEFAULT_GRAPH_NODES),
                value(session, environment, STRING_LENGTH, DEFAULT_STRING_LENGTH),
                value(session, environment, RUN_BYTES, heap));
    }

    private static long value(Map<String, String> session, Map<String, String> environment, String key,
                              long defaultValue) {
        String text = session.get(key);
        if (text == null) {
            text = environment.get(key);
        }
        if (text == null || text.isBlank()) {
            return defaultValue;
        }
        long v;
        try {
            v = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidArgumentException(key + " needs a whole number of 0 or more, got "
                    + Names.quote(text));
        }
        if (v < 0) {
            throw new InvalidArgumentException(key + " needs a whole number of 0 or more, got " + v);
        }
        return v == 0 ? defaultValue : v;
    }

    /**
     * Formats a byte count for messages: {@code 6.4 GB (6400000000 bytes)}.
     *
     * @param bytes the count
     * @return the text
     */
    public static String bytes(long bytes) {
        if (bytes < 10_000) {
            return bytes + " bytes";
        }
        String[] units = {"kB", "MB", "GB", "TB", "PB", "EB"};
        double v = bytes;
        int u = -1;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s (%d bytes)", v, units[u], bytes);
    }
}
