package io.ortex.api;

/**
 * How a session picks its EPs when none were appended explicitly, with ONNX Runtime's
 * {@code OrtExecutionProviderDevicePolicy} values and meaning. EP devices are first ordered NPU, GPU, CPU (discrete
 * GPUs first, devices whose vendor matches the EP's vendor first, the built-in CPU EP last, then by EP name); then:
 * <ul>
 * <li>{@link #DEFAULT} and {@link #PREFER_CPU} take the first CPU device;</li>
 * <li>{@link #PREFER_NPU}, {@link #MAX_EFFICIENCY} and {@link #MIN_OVERALL_POWER} take the first device if it is an
 * NPU (with no NPU they behave like {@code PREFER_CPU}, without trying a GPU);</li>
 * <li>{@link #PREFER_GPU} and {@link #MAX_PERFORMANCE} take the first GPU, if any;</li>
 * </ul>
 * and every policy then adds the CPU fallback.
 */
public enum ExecutionProviderDevicePolicy {
    /** The same as {@link #PREFER_CPU}. */
    DEFAULT,
    /** The first CPU device. */
    PREFER_CPU,
    /** The first NPU, if the ordered list starts with one; then the CPU. */
    PREFER_NPU,
    /** The first GPU, if any; then the CPU. */
    PREFER_GPU,
    /** The same as {@link #PREFER_GPU}. */
    MAX_PERFORMANCE,
    /** The same as {@link #PREFER_NPU}. */
    MAX_EFFICIENCY,
    /** The same as {@link #PREFER_NPU}. */
    MIN_OVERALL_POWER
}
