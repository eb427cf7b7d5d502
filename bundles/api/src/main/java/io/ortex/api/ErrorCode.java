package io.ortex.api;

/** What kind of failure an {@link OrtexException} reports; the values follow ONNX Runtime's status codes. */
public enum ErrorCode {
    /** A generic failure while doing the job. */
    FAIL,
    /** An argument, option or input value is wrong. */
    INVALID_ARGUMENT,
    /** A file that should exist does not. */
    NO_SUCH_FILE,
    /** The model file is not a valid ONNX model. */
    INVALID_PROTOBUF,
    /** The model is a valid protobuf but its graph breaks ONNX rules. */
    INVALID_GRAPH,
    /** An operator, attribute or element type that Ortex does not implement. */
    NOT_IMPLEMENTED,
    /** An execution provider is gone or being removed. */
    EP_UNAVAILABLE,
    /** A failure while running a model. */
    RUNTIME_EXCEPTION
}
