package io.ortex.api;

import java.nio.file.Path;
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

    /**
     * {@code "1"} shares the constant weights that EP kernels pre-pack ({@code KernelImpl.prePackWeight}) with the
     * other sessions of the same environment that set it: a kernel of the same EP and definition meeting a weight
     * of the same content reuses the one packed copy, which is released when the last of those sessions closes
     * (ONNX Runtime's key; there it also shares the environment's allocators). Default:
     * {@value #USE_ENV_ALLOCATORS_DEFAULT}.
     */
    public static final String USE_ENV_ALLOCATORS = "session.use_env_allocators";
    /** Default of {@link #USE_ENV_ALLOCATORS}: each session packs its own weights. */
    public static final String USE_ENV_ALLOCATORS_DEFAULT = "0";

    /**
     * {@code "1"} stops the runtime from asking EP kernels to pre-pack constant weights (ONNX Runtime's key).
     * Default: {@value #DISABLE_PREPACKING_DEFAULT}.
     */
    public static final String DISABLE_PREPACKING = "session.disable_prepacking";
    /** Default of {@link #DISABLE_PREPACKING}: kernels may pre-pack. */
    public static final String DISABLE_PREPACKING_DEFAULT = "0";

    /**
     * {@code "1"} makes session creation write a compiled model in which each partition an EP compiled is an
     * {@code EPContext} node (ONNX Runtime's key). Default: {@value #EP_CONTEXT_ENABLE_DEFAULT}.
     */
    public static final String EP_CONTEXT_ENABLE = "ep.context_enable";
    /** Default of {@link #EP_CONTEXT_ENABLE}: no compiled model is written. */
    public static final String EP_CONTEXT_ENABLE_DEFAULT = "0";

    /**
     * The compiled model's path (ONNX Runtime's key); it must name a file. Default: none, meaning
     * {@code <model>_ctx.onnx} beside the source model; required when the model is loaded from bytes. When loading a
     * compiled model from bytes, its folder is where context binary files are looked up.
     */
    public static final String EP_CONTEXT_FILE_PATH = "ep.context_file_path";

    /**
     * {@code "1"} puts each payload inside its node's {@code ep_cache_context} attribute; {@code "0"} writes one
     * context binary per partition beside the compiled model, {@code <model>_<EP>.bin} (numbered when an EP compiled
     * several partitions), and stores its relative path (ONNX Runtime's key). Default:
     * {@value #EP_CONTEXT_EMBED_MODE_DEFAULT}.
     */
    public static final String EP_CONTEXT_EMBED_MODE = "ep.context_embed_mode";
    /** Default of {@link #EP_CONTEXT_EMBED_MODE}: context binaries in separate files. */
    public static final String EP_CONTEXT_EMBED_MODE_DEFAULT = "0";

    /**
     * A prefix for the names (and {@code partition_name}) of the EPContext nodes written, so that nodes of several
     * compiled models can be merged into one (ONNX Runtime's key). Default: none.
     */
    public static final String EP_CONTEXT_NODE_NAME_PREFIX = "ep.context_node_name_prefix";

    /**
     * When set, every initializer the compiled model keeps is written to this external data file beside it
     * instead of inside it (ONNX Runtime's key). Default: none, all initializers embedded.
     */
    public static final String EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME =
            "ep.context_model_external_initializers_file_name";

    /**
     * {@code "1"} lets EPs share resources (weights) between the compiled sessions (ONNX Runtime's key): the sessions
     * that set it while generating compiled models ({@link #EP_CONTEXT_ENABLE}) form a group whose EPContext payloads
     * and shared blobs ({@code io.ortex.api.spi.SharedBlob}) go, each content once, into one shared context binary
     * named after the group's first compiled model ({@code <model>_shared.bin}, in the folder all of the group's
     * models must share). Default: {@value #EP_SHARE_EP_CONTEXTS_DEFAULT}.
     */
    public static final String EP_SHARE_EP_CONTEXTS = "ep.share_ep_contexts";
    /** Default of {@link #EP_SHARE_EP_CONTEXTS}: no sharing. */
    public static final String EP_SHARE_EP_CONTEXTS_DEFAULT = "0";

    /**
     * {@code "1"} marks the last session of a group that shares EP resources (ONNX Runtime's key): once it has
     * compiled, the group's shared context binary is written (atomically) and the group closed; it implies
     * {@link #EP_SHARE_EP_CONTEXTS}. Default: {@value #EP_STOP_SHARE_EP_CONTEXTS_DEFAULT}.
     */
    public static final String EP_STOP_SHARE_EP_CONTEXTS = "ep.stop_share_ep_contexts";
    /** Default of {@link #EP_STOP_SHARE_EP_CONTEXTS}. */
    public static final String EP_STOP_SHARE_EP_CONTEXTS_DEFAULT = "0";

    /**
     * {@code "1"} makes loading a compiled model fail when an EP says it would be better recompiled
     * ({@link CompiledModelCompatibility#SUPPORTED_PREFER_RECOMPILATION}); otherwise that is a warning (ONNX
     * Runtime's key). Default: {@value #FAIL_ON_SUBOPTIMAL_COMPILED_MODEL_DEFAULT}.
     */
    public static final String FAIL_ON_SUBOPTIMAL_COMPILED_MODEL = "session.fail_on_suboptimal_compiled_model";
    /** Default of {@link #FAIL_ON_SUBOPTIMAL_COMPILED_MODEL}: a warning only. */
    public static final String FAIL_ON_SUBOPTIMAL_COMPILED_MODEL_DEFAULT = "0";

    /**
     * The model metadata key prefix under which an EP's compatibility string is stored in a compiled model,
     * followed by the EP name ({@code ep_compatibility_info.<EP>}).
     */
    public static final String EP_COMPATIBILITY_INFO_PREFIX = "ep_compatibility_info.";

    /**
     * {@code "1"} moves the session onto the remaining EPs when the library of an EP it holds is being removed
     * (an Ortex key, beyond ONNX Runtime): between runs the session selects again with these options minus the
     * departing EP, is partitioned and compiled again, and gives up its lease on the departing library, so the
     * removal completes without waiting for the session to close and its callers see no error. Runs in flight finish
     * on the old EPs; the next run uses the new ones. With {@code "0"} the removal waits for the session, or fails
     * it, as the removal's caller asked. Default: {@value #MIGRATE_ON_EP_REMOVAL_DEFAULT}.
     */
    public static final String MIGRATE_ON_EP_REMOVAL = "ortex.session.migrate_on_ep_removal";
    /** Default of {@link #MIGRATE_ON_EP_REMOVAL}: a session keeps its EPs until it closes or is failed. */
    public static final String MIGRATE_ON_EP_REMOVAL_DEFAULT = "0";

    /**
     * The folder of the compile cache (an Ortex feature, not ONNX Runtime's): when set, session creation looks the
     * compiled model up by a key of the model's content (SHA-256 of its bytes and external data files, memoized by
     * path, size, modification time and file key), each selected EP's name, vendor and version, the devices, the EP
     * options and the {@code ep.*} configuration entries; a hit loads the cached compiled model, a miss compiles
     * (EPContext, payloads embedded) and stores it without the initializers the source model holds. Entries are
     * written atomically and checked (CRC-32C) on reading; a corrupted one is deleted and recompiled. Sessions that
     * generate a compiled model themselves ({@link #EP_CONTEXT_ENABLE}), share EP contexts, or load an already
     * compiled model bypass the cache. Also settable for every session as the environment configuration entry of the
     * same name, which a session option overrides. Default: {@value #COMPILE_CACHE_DIR_DEFAULT} (no cache).
     */
    public static final String COMPILE_CACHE_DIR = "ortex.compile_cache.dir";
    /** Default of {@link #COMPILE_CACHE_DIR}: empty, the cache is off. */
    public static final String COMPILE_CACHE_DIR_DEFAULT = "";

    /**
     * The most bytes the compile cache keeps; after storing an entry, the least recently used entries (by file
     * modification time, which a hit refreshes) are deleted until the cache fits. Also an environment configuration
     * entry. Default: {@value #COMPILE_CACHE_MAX_BYTES_DEFAULT} (1 GiB).
     */
    public static final String COMPILE_CACHE_MAX_BYTES = "ortex.compile_cache.max_bytes";
    /** Default of {@link #COMPILE_CACHE_MAX_BYTES}: 1 GiB. */
    public static final String COMPILE_CACHE_MAX_BYTES_DEFAULT = "1073741824";

    /**
     * How much the runtime optimizes the graph before partitioning it, as ONNX Runtime's session option
     * {@code graph_optimization_level}: {@code DISABLE_ALL}, {@code BASIC}, {@code EXTENDED} or {@code ALL} (ONNX
     * Runtime's numbers 0, 1, 2 and 99 are accepted too); see {@link GraphOptimizationLevel} for what each level
     * does. Set it with {@link #graphOptimizationLevel(GraphOptimizationLevel)}. Default:
     * {@value #GRAPH_OPTIMIZATION_LEVEL_DEFAULT}, as in ONNX Runtime.
     */
    public static final String GRAPH_OPTIMIZATION_LEVEL = "session.graph_optimization_level";
    /** Default of {@link #GRAPH_OPTIMIZATION_LEVEL}: every optimization. */
    public static final String GRAPH_OPTIMIZATION_LEVEL_DEFAULT = "ALL";

    /**
     * Where to save the model as the runtime optimized it, before partitioning (ONNX Runtime's session option
     * {@code optimized_model_filepath}): a valid ONNX model that other runtimes load. Default: empty (not saved).
     */
    public static final String OPTIMIZED_MODEL_FILEPATH = "session.optimized_model_filepath";

    /**
     * Optimizers to leave out, by name, separated by commas (ONNX Runtime's
     * {@code optimization.disable_specified_optimizers}); the names are listed with {@link GraphOptimizationLevel}.
     * Default: empty (none left out).
     */
    public static final String DISABLE_SPECIFIED_OPTIMIZERS = "optimization.disable_specified_optimizers";

    /**
     * {@code "1"} lets idle intra-op threads spin briefly for the next parallel loop before they sleep, {@code "0"}
     * makes them sleep at once (ONNX Runtime's {@code session.intra_op.allow_spinning}). Spinning saves the wake-up
     * latency between the kernels of a model and costs CPU time while the threads wait. Default:
     * {@value #INTRA_OP_ALLOW_SPINNING_DEFAULT}.
     */
    public static final String INTRA_OP_ALLOW_SPINNING = "session.intra_op.allow_spinning";
    /** Default of {@link #INTRA_OP_ALLOW_SPINNING}: spin. */
    public static final String INTRA_OP_ALLOW_SPINNING_DEFAULT = "1";

    /**
     * The file to which the session writes its profile (an Ortex key; ONNX Runtime's {@code enable_profiling} with a
     * file name instead of a prefix): when set, the session records its creation, each run and each executed node
     * (op, EP, input and output shapes, duration), and {@link Session#endProfiling()} writes them as a Chrome trace
     * (JSON) that {@code chrome://tracing} and Perfetto load. Set it with {@link #enableProfiling(Path)}. Default:
     * empty (no profiling).
     */
    public static final String PROFILE_FILE = "ortex.session.profile_file";

    /**
     * How long an EP's {@code compile} may take, in milliseconds (an Ortex key): an EP that has not returned by then
     * is cut off and session creation fails naming it (or goes on without it, see
     * {@link #RETRY_WITHOUT_FAILED_EP}). The call runs on a thread of its own, which is interrupted; the EP instance
     * is released once the call returns. {@code 0} waits as long as it takes. Default:
     * {@value #EP_COMPILE_TIMEOUT_MS_DEFAULT}.
     */
    public static final String EP_COMPILE_TIMEOUT_MS = "ortex.session.ep_compile_timeout_ms";
    /** Default of {@link #EP_COMPILE_TIMEOUT_MS}: no limit. */
    public static final String EP_COMPILE_TIMEOUT_MS_DEFAULT = "0";

    /**
     * {@code "1"} lets session creation go on without an EP that failed (threw in {@code compile}, or was cut off by
     * {@link #EP_COMPILE_TIMEOUT_MS}): the session selects again without that EP, and the nodes it would have run go
     * to the others, the CPU EP last (an Ortex key). It applies only while the CPU EP fallback is on
     * ({@link #DISABLE_CPU_EP_FALLBACK} not {@code "1"}), and never to the CPU EP itself; the failure is logged as a
     * warning. With {@code "0"} such a failure fails session creation, naming the EP. Default:
     * {@value #RETRY_WITHOUT_FAILED_EP_DEFAULT}.
     */
    public static final String RETRY_WITHOUT_FAILED_EP = "ortex.session.retry_without_failed_ep";
    /** Default of {@link #RETRY_WITHOUT_FAILED_EP}: a failing EP fails session creation. */
    public static final String RETRY_WITHOUT_FAILED_EP_DEFAULT = "0";

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
     * Sets how much the runtime optimizes the graph (the {@link #GRAPH_OPTIMIZATION_LEVEL} entry).
     *
     * @param level the level
     * @return these options
     */
    public SessionOptions graphOptimizationLevel(GraphOptimizationLevel level) {
        return config(GRAPH_OPTIMIZATION_LEVEL, Objects.requireNonNull(level, "level").name());
    }

    /**
     * Gets how much the runtime optimizes the graph.
     *
     * @return the level of the {@link #GRAPH_OPTIMIZATION_LEVEL} entry, {@link GraphOptimizationLevel#ALL} when it
     *     is not set
     * @throws InvalidArgumentException when the entry names no level
     */
    public GraphOptimizationLevel graphOptimizationLevel() {
        return GraphOptimizationLevel.parse(configValue(GRAPH_OPTIMIZATION_LEVEL, GRAPH_OPTIMIZATION_LEVEL_DEFAULT));
    }

    /**
     * Makes the session record a profile, which {@link Session#endProfiling()} writes to {@code file} (the
     * {@link #PROFILE_FILE} entry).
     *
     * @param file the trace file to write
     * @return these options
     */
    public SessionOptions enableProfiling(Path file) {
        return config(PROFILE_FILE, Objects.requireNonNull(file, "file").toString());
    }

    /**
     * Gets the file the session's profile goes to.
     *
     * @return the file, or {@code null} when profiling is off
     */
    public Path profilingFile() {
        String f = configValue(PROFILE_FILE, "");
        return f.isEmpty() ? null : Path.of(f);
    }

    /**
     * Copies these options: configuration, threads, appended EPs, policy and delegate.
     *
     * @return a copy that can be changed without changing these options
     */
    public SessionOptions copy() {
        SessionOptions c = new SessionOptions();
        c.config.putAll(config);
        c.intraOpThreads = intraOpThreads;
        c.appended.addAll(appended);
        c.policy = policy;
        c.delegate = delegate;
        return c;
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
