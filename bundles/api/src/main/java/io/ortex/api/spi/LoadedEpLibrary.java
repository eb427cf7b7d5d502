package io.ortex.api.spi;

import java.util.List;

/**
 * A library an {@link EpLibraryLoader} loaded: its EP factories, and the way to unload it. Added in package version
 * 0.3.0.
 */
public interface LoadedEpLibrary extends AutoCloseable {
    /**
     * Gets the library's factories, which the runtime registers under the library's name.
     * Mirrors ONNX Runtime's {@code CreateEpFactories}.
     *
     * @return the factories; may be empty when the library offers no EP
     */
    List<EpFactory> factories();

    /**
     * Unloads the library. The runtime calls it once, after every session that held one of its EPs has released it
     * (or when registering it failed); nothing of the library runs afterwards.
     * Mirrors ONNX Runtime's {@code ReleaseEpFactory} for each factory, then the library's unloading.
     */
    @Override
    void close();
}
