package io.ortex.api;

/**
 * A run would take more than a {@linkplain ResourceLimits resource limit} allows: a tensor with more elements than
 * allowed, or more memory than the run may hold or the JVM has. The check comes before the allocation, so nothing was
 * allocated, and the session stays usable. {@link #limitKey()} names the configuration key of the limit. (A model
 * beyond a limit is an {@link InvalidModelException} whose message names the key.)
 */
public class ResourceLimitException extends OrtexException {
    private static final long serialVersionUID = 1L;

    /** The configuration key of the limit, or {@code null} for the JVM's own. */
    private final String limitKey;

    /**
     * Creates the exception.
     *
     * @param code the error code, {@link ErrorCode#RUNTIME_EXCEPTION} for a run
     * @param message what would exceed which limit, naming the culprit
     * @param limitKey the configuration key of the limit, such as {@value ResourceLimits#RUN_BYTES}, or {@code null}
     *     when the limit is the JVM's own (its maximum heap, the largest Java array)
     */
    public ResourceLimitException(ErrorCode code, String message, String limitKey) {
        super(code, message);
        this.limitKey = limitKey;
    }

    /**
     * Gets the configuration key of the limit that would be exceeded.
     *
     * @return the key, or {@code null} when the limit is the JVM's own
     */
    public String limitKey() {
        return limitKey;
    }
}
