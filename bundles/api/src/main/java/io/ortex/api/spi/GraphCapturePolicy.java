package io.ortex.api.spi;

/**
 * Which nodes may run outside an EP that captures graphs (ONNX Runtime's
 * {@code OrtGraphCaptureNodeAssignmentPolicy}); the session checks it once partitioned and refuses a session that
 * breaks it.
 */
public enum GraphCapturePolicy {
    /** Every node runs on the capturing EP. */
    ALL_NODES_ON_EP,
    /**
     * Nodes may also run on the CPU EP (shape computations), as long as no copy between memories is needed: the
     * capturing EP keeps its values in CPU memory.
     */
    ALLOW_CPU_FOR_SHAPES
}
