package io.ortex.api;

import java.util.Objects;

/**
 * The root of every exception Ortex throws on purpose. Each carries an {@link ErrorCode} and a message that names
 * the file, node, attribute or option at fault.
 */
public class OrtexException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure this is. */
    private final ErrorCode code;

    /**
     * Creates an exception.
     *
     * @param code what kind of failure this is
     * @param message what went wrong, naming the culprit
     */
    public OrtexException(ErrorCode code, String message) {
        this(code, message, null);
    }

    /**
     * Creates an exception with a cause.
     *
     * @param code what kind of failure this is
     * @param message what went wrong, naming the culprit
     * @param cause the underlying failure, or {@code null}
     */
    public OrtexException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    /**
     * Gets the error code.
     *
     * @return the kind of failure
     */
    public ErrorCode code() {
        return code;
    }
}
