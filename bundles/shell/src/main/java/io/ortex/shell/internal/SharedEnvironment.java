package io.ortex.shell.internal;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.ModelCompiler;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One command's view of an environment it does not own, such as the OSGi {@code Environment} service: every call
 * goes to that environment, and {@link #close()} unregisters only the EP libraries registered through this view
 * (those of {@code --register}) instead of closing the environment. Thread safe as the environment is.
 */
final class SharedEnvironment implements Environment {
    private final Environment shared;
    private final List<String> registered = Collections.synchronizedList(new ArrayList<>());

    /**
     * Wraps the shared environment.
     *
     * @param shared the environment, which this view never closes
     */
    SharedEnvironment(Environment shared) {
        this.shared = shared;
    }

    @Override
    public List<HardwareDevice> hardwareDevices() {
        return shared.hardwareDevices();
    }

    @Override
    public List<EpDevice> epDevices() {
        return shared.epDevices();
    }

    @Override
    public List<EpLibraryInfo> epLibraries() {
        return shared.epLibraries();
    }

    @Override
    public Map<String, String> config() {
        return shared.config();
    }

    @Override
    public Session createSession(Path model, SessionOptions options) {
        return shared.createSession(model, options);
    }

    @Override
    public Session createSession(byte[] model, SessionOptions options) {
        return shared.createSession(model, options);
    }

    /** Registers the library with the shared environment; {@link #close()} unregisters it. */
    @Override
    public void registerLibrary(String name, Path jar) {
        shared.registerLibrary(name, jar);
        registered.add(name);
    }

    @Override
    public void unregisterLibrary(String name) {
        shared.unregisterLibrary(name);
        registered.remove(name);
    }

    @Override
    public void unregisterLibrary(String name, Duration timeout) {
        shared.unregisterLibrary(name, timeout);
        registered.remove(name);
    }

    @Override
    public DeviceIncompatibility deviceIncompatibility(String epName, HardwareDevice device) {
        return shared.deviceIncompatibility(epName, device);
    }

    @Override
    public ModelCompiler modelCompiler(SessionOptions options) {
        return shared.modelCompiler(options);
    }

    @Override
    public Map<String, CompiledModelCompatibility> compiledModelCompatibility(Path model, List<EpDevice> devices) {
        return shared.compiledModelCompatibility(model, devices);
    }

    @Override
    public void addEpDeviceListener(EpDeviceListener listener) {
        shared.addEpDeviceListener(listener);
    }

    @Override
    public void removeEpDeviceListener(EpDeviceListener listener) {
        shared.removeEpDeviceListener(listener);
    }

    /** Unregisters the libraries registered through this view, newest first; the shared environment stays open. */
    @Override
    public void close() {
        List<String> names;
        synchronized (registered) {
            names = new ArrayList<>(registered);
            registered.clear();
        }
        Collections.reverse(names);
        for (String name : names) {
            shared.unregisterLibrary(name);
        }
    }
}
