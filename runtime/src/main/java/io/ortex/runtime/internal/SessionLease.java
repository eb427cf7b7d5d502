package io.ortex.runtime.internal;

/**
 * A session's claim on the EP libraries it uses, taken before its EPs are created and given back when it closes.
 *
 * @param sessionId the session's id
 * @param modelSource where its model came from
 */
record SessionLease(String sessionId, String modelSource) {
    @Override
    public String toString() {
        // a model loaded from bytes already reads "(bytes)"
        return sessionId + (modelSource.startsWith("(") ? " " + modelSource : " (" + modelSource + ")");
    }
}
