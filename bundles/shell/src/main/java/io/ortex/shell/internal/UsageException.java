package io.ortex.shell.internal;

/** A command-line mistake: an unknown verb or option, a missing or malformed value. Exit status 2. */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong, naming the option
     */
    public UsageException(String message) {
        super(message);
    }
}
