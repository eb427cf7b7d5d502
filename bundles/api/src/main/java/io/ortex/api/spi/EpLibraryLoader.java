package io.ortex.api.spi;

import java.nio.file.Path;
import java.util.Map;

/**
 * Loads EP libraries that are not jars, such as ONNX Runtime's native plugin-EP libraries, for
 * {@link io.ortex.api.Environment#registerLibrary}. A loader is an OSGi service or a {@link java.util.ServiceLoader}
 * provider; the runtime offers it every file that is not a jar, and the first loader that accepts a file loads it.
 * The runtime then treats the library like a jar's: its EP devices are listed, sessions lease its EPs, and unloading
 * ({@link LoadedEpLibrary#close()}) waits until no session holds them. When a loader goes away (its bundle stops),
 * the libraries it loaded are removed first, with the same wait. Added in package version 0.3.0. Implementations
 * are thread safe.
 */
public interface EpLibraryLoader {
    /**
     * Describes the libraries this loader handles, for messages, such as
     * {@code ONNX Runtime plugin-EP libraries (.so)}.
     *
     * @return a short description
     */
    String description();

    /**
     * Tells whether this loader handles a file, from its name or first bytes. It must not load the file.
     * The loading half of ONNX Runtime's {@code RegisterExecutionProviderLibrary}, which opens the library and calls
     * its {@code CreateEpFactories}.
     *
     * @param file a regular file that is not a jar
     * @return true when {@link #load} should be tried
     */
    boolean accepts(Path file);

    /**
     * Loads a library.
     * The loading half of ONNX Runtime's {@code RegisterExecutionProviderLibrary}, which opens the library and calls
     * its {@code CreateEpFactories}.
     *
     * @param name the registration name (ending in {@code .virtual} when the library may offer virtual devices)
     * @param file the library file
     * @param environmentConfig the environment's configuration entries
     * @return the loaded library with its EP factories
     * @throws io.ortex.api.InvalidArgumentException naming the file when it is missing, not a library, or not one this
     *     loader can use (for example a native library without the plugin entry points)
     */
    LoadedEpLibrary load(String name, Path file, Map<String, String> environmentConfig);
}
