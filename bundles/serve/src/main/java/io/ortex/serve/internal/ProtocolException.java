package io.ortex.serve.internal;

/**
 * A request the server refuses or cannot serve, with the HTTP status to answer and a message that names the model,
 * input, datatype or shape at fault; it becomes the protocol's {@code {"error": "..."}} body.
 */
public final class ProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** 400: the request is malformed or does not fit the model. */
    public static final int BAD_REQUEST = 400;
    /** 404: no such model, version or route. */
    public static final int NOT_FOUND = 404;
    /** 405: the route exists, the method does not. */
    public static final int METHOD_NOT_ALLOWED = 405;
    /** 413: the body is larger than the configured limit. */
    public static final int TOO_LARGE = 413;
    /** 500: the model failed while running. */
    public static final int INTERNAL = 500;
    /** 503: the model is not ready. */
    public static final int UNAVAILABLE = 503;

    /** The HTTP status to answer with. */
    private final int status;

    /**
     * Creates the exception.
     *
     * @param status the HTTP status
     * @param message what is wrong, naming what is at fault
     */
    public ProtocolException(int status, String message) {
        super(message);
        this.status = status;
    }

    /**
     * Creates a 400 exception.
     *
     * @param message what is wrong
     * @return the exception
     */
    public static ProtocolException badRequest(String message) {
        return new ProtocolException(BAD_REQUEST, message);
    }

    /**
     * Gets the HTTP status to answer with.
     *
     * @return the status
     */
    public int status() {
        return status;
    }
}
