package io.ortex.api;

/**
 * How well a compiled model (one holding EPContext nodes) suits a set of EP devices, with ONNX Runtime's
 * {@code OrtCompiledModelCompatibility} values.
 */
public enum CompiledModelCompatibility {
    /** The EP has nothing to say about this model (it did not compile it). */
    NOT_APPLICABLE,
    /** The model was compiled for these devices and runs at its best. */
    SUPPORTED_OPTIMAL,
    /** The model runs, but recompiling it for these devices would be better. */
    SUPPORTED_PREFER_RECOMPILATION,
    /** The model cannot run on these devices. */
    UNSUPPORTED
}
