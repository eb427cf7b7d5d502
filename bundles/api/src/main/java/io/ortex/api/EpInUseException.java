package io.ortex.api;

import java.util.List;

/**
 * Thrown when an EP library cannot be unregistered because open sessions still hold its EPs. The message lists the
 * sessions; close them, or unregister with a timeout that waits for them.
 */
public class EpInUseException extends OrtexException {
    private static final long serialVersionUID = 1L;

    /** The registration name of the library in use. */
    private final String library;
    /** The sessions holding the library, each as {@code id (model)}. */
    private final List<String> sessions;

    /**
     * Creates the exception.
     *
     * @param library the registration name of the library
     * @param sessions descriptions of the sessions holding it ({@code id (model)})
     * @param waited whether the caller waited for them before giving up
     */
    public EpInUseException(String library, List<String> sessions, boolean waited) {
        super(ErrorCode.FAIL, "EP library '" + library + "' is in use by " + sessions.size() + " session"
                + (sessions.size() == 1 ? "" : "s") + (waited ? " after waiting" : "") + ": "
                + String.join(", ", sessions) + "; close them first");
        this.library = library;
        this.sessions = List.copyOf(sessions);
    }

    /**
     * Gets the library's registration name.
     *
     * @return the name
     */
    public String library() {
        return library;
    }

    /**
     * Gets the sessions holding the library.
     *
     * @return descriptions of the sessions
     */
    public List<String> sessions() {
        return sessions;
    }
}
