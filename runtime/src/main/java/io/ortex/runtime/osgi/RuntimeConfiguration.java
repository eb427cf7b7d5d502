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
}
