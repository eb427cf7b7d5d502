package io.ortex.ep.ort;

import io.ortex.api.EpUnavailableException;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.LoadedEpLibrary;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A native ONNX Runtime plugin-EP library registered with ONNX Runtime ({@code registerExecutionProviderLibrary}):
 * one Ortex EP factory per ONNX Runtime EP it added, and the count of ONNX Runtime sessions using its devices. ONNX
 * Runtime does not protect a library its sessions still use, so unregistering it waits for that count: when the
 * runtime releases the library ({@link #close()}, after its drain) no new session may start, and the library is
 * unregistered from ONNX Runtime as soon as the last session closes. Thread safe.
 */
final class PluginLibrary implements LoadedEpLibrary, SessionGuard {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.ep.ort");

    private final String name;
    private final Path file;
    private final Consumer<String> unregistration;
    private List<EpFactory> factories = List.of();
    private int sessions;
    private boolean closing;
    private boolean unregistered;

    /**
     * Describes a library ONNX Runtime has just registered.
     *
     * @param name the registration name
     * @param file the library file
     */
    PluginLibrary(String name, Path file) {
        this(name, file, OrtRuntime::unregisterLibrary);
    }

    /**
     * Describes a library, with the way to unregister it.
     *
     * @param name the registration name
     * @param file the library file
     * @param unregistration unregisters the library of the given name from ONNX Runtime
     */
    PluginLibrary(String name, Path file, Consumer<String> unregistration) {
        this.name = name;
        this.file = file;
        this.unregistration = unregistration;
    }

    /**
     * Sets the factories, once they are built.
     *
     * @param factories one factory per ONNX Runtime EP of the library
     */
    synchronized void factories(List<EpFactory> factories) {
        this.factories = List.copyOf(factories);
    }

    @Override
    public synchronized List<EpFactory> factories() {
        return factories;
    }

    /**
     * Gets the registration name.
     *
     * @return the name
     */
    String name() {
        return name;
    }

    @Override
    public synchronized void opening() {
        if (closing) {
            throw new EpUnavailableException("ONNX Runtime plugin-EP library '" + name + "' (" + file
                    + ") is being unregistered");
        }
        sessions++;
    }

    @Override
    public void closed() {
        boolean last;
        synchronized (this) {
            sessions--;
            last = closing && sessions == 0;
        }
        if (last) {
            unregister();
        }
    }

    /**
     * Tells how many ONNX Runtime sessions use the library now.
     *
     * @return the count
     */
    synchronized int sessions() {
        return sessions;
    }

    /**
     * Tells whether the library was unregistered from ONNX Runtime.
     *
     * @return true once unregistered
     */
    synchronized boolean isUnregistered() {
        return unregistered;
    }

    /** Stops new sessions and unregisters the library from ONNX Runtime once no session uses it. */
    @Override
    public void close() {
        boolean now;
        synchronized (this) {
            closing = true;
            now = sessions == 0;
        }
        if (now) {
            unregister();
        } else {
            LOG.info("ONNX Runtime plugin-EP library '{}' is unregistered when its {} session(s) close", name,
                    sessions());
        }
    }

    private void unregister() {
        synchronized (this) {
            if (unregistered) {
                return;
            }
            unregistered = true;
        }
        unregistration.accept(name);
    }

    @Override
    public String toString() {
        return name + " (" + file + ")";
    }
}
