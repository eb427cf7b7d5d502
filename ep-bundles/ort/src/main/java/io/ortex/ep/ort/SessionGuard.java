package io.ortex.ep.ort;

/**
 * Counts the ONNX Runtime sessions that use a plugin-EP library's devices, so that the library is unregistered from
 * ONNX Runtime only after the last of them closed (ONNX Runtime itself does not track this). Implementations are
 * thread safe.
 */
interface SessionGuard {
    /** The guard of EPs built into ONNX Runtime, which are never unregistered. */
    SessionGuard NONE = new SessionGuard() {
        @Override
        public void opening() {
        }

        @Override
        public void closed() {
        }
    };

    /**
     * Called before a session that uses the library's devices is created.
     *
     * @throws io.ortex.api.EpUnavailableException when the library is being unregistered
     */
    void opening();

    /** Called once after such a session closed, or when creating it failed. */
    void closed();
}
