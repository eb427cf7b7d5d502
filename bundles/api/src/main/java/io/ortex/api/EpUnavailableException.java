package io.ortex.api;

/** An execution provider that is gone or being removed, so the session cannot use it. */
public class EpUnavailableException extends OrtexException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception with error code {@link ErrorCode#EP_UNAVAILABLE}.
     *
     * @param message what is wrong, naming the culprit
     */
    public EpUnavailableException(String message) {
        super(ErrorCode.EP_UNAVAILABLE, message);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param code the precise error code
     * @param message what is wrong, naming the culprit
     * @param cause the underlying failure, or {@code null}
     */
    public EpUnavailableException(ErrorCode code, String message, Throwable cause) {
        super(code, message, cause);
    }
}
