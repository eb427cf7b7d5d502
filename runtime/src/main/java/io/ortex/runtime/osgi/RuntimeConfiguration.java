package io.ortex.runtime.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * The metatype description of the runtime's ConfigAdmin configuration, PID {@value RuntimeSettings#PID}. The keys and
 * their defaults are the constants of {@link RuntimeSettings}, which parses them; this type only describes them to
 * configuration tools. Entries {@code ortex.device.<id>.<attribute>} (devices added by configuration) are read too,
 * though metatype cannot list keys whose names vary.
 */
@ObjectClassDefinition(id = RuntimeSettings.PID, name = "Ortex runtime",
        description = "Selection defaults, EP removal (drain), virtual-device grants and hardware discovery of the "
                + "Ortex runtime in an OSGi framework.")
public @interface RuntimeConfiguration {
    /**
     * The selection policy of sessions whose options name no EP, policy or delegate (key
     * {@value RuntimeSettings#DEFAULT_POLICY}).
     *
     * @return a policy name, or empty for none (such sessions use the CPU EP alone)
     */
    @AttributeDefinition(name = "Default selection policy", required = false,
            description = "Policy for sessions created with no explicit EPs, policy or delegate; empty: CPU EP only.",
            options = {
                @Option(label = "none (CPU EP only)", value = ""),
                @Option(label = "DEFAULT", value = "DEFAULT"),
                @Option(label = "PREFER_CPU", value = "PREFER_CPU"),
                @Option(label = "PREFER_NPU", value = "PREFER_NPU"),
                @Option(label = "PREFER_GPU", value = "PREFER_GPU"),
                @Option(label = "MAX_PERFORMANCE", value = "MAX_PERFORMANCE"),
                @Option(label = "MAX_EFFICIENCY", value = "MAX_EFFICIENCY"),
                @Option(label = "MIN_OVERALL_POWER", value = "MIN_OVERALL_POWER")
            })
    String default_policy() default "";

    /**
     * How long removing an EP bundle waits for the sessions holding it (key
     * {@value RuntimeSettings#DRAIN_LIMIT_SECONDS}).
     *
     * @return seconds, at least 1
     */
    @AttributeDefinition(name = "Drain limit (s)", min = "1",
            description = "How long the removal of an EP bundle waits for the sessions that hold it.")
    long drain_limit_seconds() default RuntimeSettings.DEFAULT_DRAIN_LIMIT_SECONDS;

    /**
     * What happens when the drain limit passes (key {@value RuntimeSettings#DRAIN_OUTCOME}).
     *
     * @return {@value RuntimeSettings#OUTCOME_FAIL} or {@value RuntimeSettings#OUTCOME_WAIT}
     */
    @AttributeDefinition(name = "Drain outcome",
            description = "fail: the sessions still holding the EP fail (their next run throws) and the EP is "
                    + "released; wait: keep waiting, logging the holders each time the limit passes.",
            options = {
                @Option(label = "fail the sessions", value = RuntimeSettings.OUTCOME_FAIL),
                @Option(label = "keep waiting", value = RuntimeSettings.OUTCOME_WAIT)
            })
    String drain_outcome() default RuntimeSettings.OUTCOME_FAIL;

    /**
     * The EP libraries (bundle symbolic names) allowed to offer virtual devices (key
     * {@value RuntimeSettings#VIRTUAL_GRANTS}).
     *
     * @return bundle symbolic names
     */
    @AttributeDefinition(name = "Virtual-device grants", required = false, cardinality = Integer.MAX_VALUE,
            description = "Symbolic names of the EP bundles whose factories may offer virtual devices.")
    String[] virtual_grants() default {};

    /**
     * Whether every EP library may offer virtual devices (key {@value RuntimeSettings#ALLOW_VIRTUAL_DEVICES}).
     *
     * @return true to grant all
     */
    @AttributeDefinition(name = "Allow virtual devices",
            description = "Lets every EP bundle offer virtual devices, as ONNX Runtime's allow_virtual_devices=1.")
    boolean allow__virtual__devices() default false;

    /**
     * The intra-op threads of sessions whose options leave them automatic (key
     * {@value RuntimeSettings#INTRA_OP_THREADS}).
     *
     * @return threads, 0 for one per processor
     */
    @AttributeDefinition(name = "Intra-op threads", min = "0",
            description = "Threads a node may use in sessions that leave it automatic; 0: one per processor.")
    int intra_op_threads() default 0;

    /**
     * The folder read in place of {@code /sys} by hardware discovery (key {@code ortex.discovery.sysfs_root}).
     *
     * @return a folder
     */
    @AttributeDefinition(name = "sysfs root", required = false,
            description = "Folder read in place of /sys by hardware discovery (read when the runtime starts).")
    String ortex_discovery_sysfs__root() default "/sys";

    /**
     * The folder read in place of {@code /proc} by hardware discovery (key {@code ortex.discovery.procfs_root}).
     *
     * @return a folder
     */
    @AttributeDefinition(name = "procfs root", required = false,
            description = "Folder read in place of /proc by hardware discovery (read when the runtime starts).")
    String ortex_discovery_procfs__root() default "/proc";

    /**
     * The largest model file read, in bytes (key {@value io.ortex.api.ResourceLimits#MODEL_BYTES}).
     *
     * @return bytes; 0 for the default ({@value io.ortex.api.ResourceLimits#DEFAULT_MODEL_BYTES})
     */
    @AttributeDefinition(name = "Limit: model bytes", min = "0", required = false,
            description = "Largest model file (or byte array) read, in bytes; 0: 2 GiB - 1, protobuf's limit.")
    long ortex_limits_model__bytes() default 0;

    /**
     * The most elements of one tensor (key {@value io.ortex.api.ResourceLimits#TENSOR_ELEMENTS}).
     *
     * @return elements; 0 for the default (the largest Java array)
     */
    @AttributeDefinition(name = "Limit: tensor elements", min = "0", required = false,
            description = "Most elements of one tensor: initializer, input file or kernel output; 0: the largest "
                    + "Java array.")
    long ortex_limits_tensor__elements() default 0;

    /**
     * The most bytes of all initializers of a model (key {@value io.ortex.api.ResourceLimits#INITIALIZER_BYTES}).
     *
     * @return bytes; 0 for the default (the JVM's maximum heap)
     */
    @AttributeDefinition(name = "Limit: initializer bytes", min = "0", required = false,
            description = "Most bytes all initializers of a model may take, inline and external; 0: the JVM's "
                    + "maximum heap.")
    long ortex_limits_initializer__bytes() default 0;

    /**
     * The deepest nesting of subgraphs (key {@value io.ortex.api.ResourceLimits#NESTING_DEPTH}).
     *
     * @return levels; 0 for the default ({@value io.ortex.api.ResourceLimits#DEFAULT_NESTING_DEPTH})
     */
    @AttributeDefinition(name = "Limit: nesting depth", min = "0", required = false,
            description = "Deepest nesting of subgraphs (If, Loop, Scan bodies); 0: 32.")
    int ortex_limits_nesting__depth() default 0;

    /**
     * The most nodes of one graph (key {@value io.ortex.api.ResourceLimits#GRAPH_NODES}).
     *
     * @return nodes; 0 for the default ({@value io.ortex.api.ResourceLimits#DEFAULT_GRAPH_NODES})
     */
    @AttributeDefinition(name = "Limit: nodes per graph", min = "0", required = false,
            description = "Most nodes one graph may hold; 0: 1,000,000.")
    long ortex_limits_graph__nodes() default 0;

    /**
     * The longest string of a model, in characters (key {@value io.ortex.api.ResourceLimits#STRING_LENGTH}).
     *
     * @return characters; 0 for the default ({@value io.ortex.api.ResourceLimits#DEFAULT_STRING_LENGTH})
     */
    @AttributeDefinition(name = "Limit: string length", min = "0", required = false,
            description = "Longest name, string attribute, string tensor element or metadata entry of a model; "
                    + "0: 1,048,576 characters.")
    long ortex_limits_string__length() default 0;

    /**
     * The most bytes a run's tensors may take at one time (key {@value io.ortex.api.ResourceLimits#RUN_BYTES}).
     *
     * @return bytes; 0 for the default (the JVM's maximum heap)
     */
    @AttributeDefinition(name = "Limit: run bytes", min = "0", required = false,
            description = "Most bytes the tensors of one run may take at one time, checked before each allocation; "
                    + "0: the JVM's maximum heap.")
    long ortex_limits_run__bytes() default 0;
}
