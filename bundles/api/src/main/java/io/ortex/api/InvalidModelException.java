package io.ortex.api;

/** A model that cannot be loaded: not ONNX, truncated, or breaking ONNX's graph rules. */
public class InvalidModelException extends OrtexException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception with error code {@link ErrorCode#INVALID_GRAPH}.
     *
     * @param message what is wrong, naming the culprit
     */
    public InvalidModelException(String message) {
        super(ErrorCode.INVALID_GRAPH, message);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param code the precise error code
     * @param message what is wrong, naming the culprit
     * @param cause the underlying failure, or {@code null}
     */
    public InvalidModelException(ErrorCode code, String message, Throwable cause) {
        super(code, message, cause);
    }
}
