package io.ortex.onnx;

import io.ortex.api.OrtexException;

/** What the fuzz tests of this module accept: Ortex's own exception, with a message fit for one line. */
final class FuzzChecks {
    private FuzzChecks() {
    }

    /**
     * Fails unless the exception explains itself in one line.
     *
     * @param e the exception a fuzzed input caused
     */
    static void requireMessage(OrtexException e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            throw new AssertionError("an OrtexException without a message", e);
        }
        if (m.chars().anyMatch(c -> c < 0x20)) {
            throw new AssertionError("a message with a control character: " + m, e);
        }
    }
}
