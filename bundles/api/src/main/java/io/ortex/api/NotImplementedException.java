package io.ortex.api;

/** An operator, attribute value, opset or element type that Ortex does not implement. */
public class NotImplementedException extends OrtexException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception with error code {@link ErrorCode#NOT_IMPLEMENTED}.
     *
     * @param message what is wrong, naming the culprit
     */
    public NotImplementedException(String message) {
        super(ErrorCode.NOT_IMPLEMENTED, message);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param code the precise error code
     * @param message what is wrong, naming the culprit
     * @param cause the underlying failure, or {@code null}
     */
    public NotImplementedException(ErrorCode code, String message, Throwable cause) {
        super(code, message, cause);
    }
}
