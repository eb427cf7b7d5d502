package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;

/**
 * An EP failed while a session was being created: it threw in {@code compile}, or did not return within the
 * configured time. Names the EP, so that session creation can go on without it when the session allows that.
 */
final class EpFailure extends OrtexException {
    private static final long serialVersionUID = 1L;

    private final String epName;
    private final transient EpInstance abandoned;

    /**
     * Creates the failure.
     *
     * @param epName the EP that failed
     * @param message what went wrong, naming the EP
     * @param cause what the EP threw, or {@code null}
     */
    EpFailure(String epName, String message, Throwable cause) {
        this(epName, message, cause, null);
    }

    /**
     * Creates the failure of a call that was cut off and still runs.
     *
     * @param epName the EP that failed
     * @param message what went wrong, naming the EP
     * @param cause what the EP threw, or {@code null}
     * @param abandoned the EP whose call still runs, which that call releases when it returns; {@code null} when none
     */
    EpFailure(String epName, String message, Throwable cause, EpInstance abandoned) {
        super(ErrorCode.FAIL, message, cause);
        this.epName = epName;
        this.abandoned = abandoned;
    }

    /**
     * Gets the EP whose call was cut off and still runs: it is released by that call, not by its session.
     *
     * @return the EP, or {@code null}
     */
    EpInstance abandoned() {
        return abandoned;
    }

    /**
     * Gets the EP that failed.
     *
     * @return its name
     */
    String epName() {
        return epName;
    }
}
