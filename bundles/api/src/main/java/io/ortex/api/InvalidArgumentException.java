package io.ortex.api;

/** An argument, option or input that the caller got wrong. */
public class InvalidArgumentException extends OrtexException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception with error code {@link ErrorCode#INVALID_ARGUMENT}.
     *
     * @param message what is wrong, naming the culprit
     */
    public InvalidArgumentException(String message) {
        super(ErrorCode.INVALID_ARGUMENT, message);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param code the precise error code
     * @param message what is wrong, naming the culprit
     * @param cause the underlying failure, or {@code null}
     */
    public InvalidArgumentException(ErrorCode code, String message, Throwable cause) {
        super(code, message, cause);
    }
}
