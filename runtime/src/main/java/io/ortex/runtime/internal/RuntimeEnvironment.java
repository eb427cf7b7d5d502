package io.ortex.runtime.internal;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.Environment;
import io.ortex.api.ErrorCode;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.ModelCompiler;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.epcontext.CompatibilityCheck;
import io.ortex.runtime.internal.epcontext.EpContextGeneration;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The runtime's {@link Environment}: hardware devices, the EP registry with its libraries and leases, and the
 * sessions open in it. Thread safe.
 */
final class RuntimeEnvironment implements Environment {
    /** The name of the built-in CPU EP, always the fallback. */
    static final String CPU_EP = "CPUExecutionProvider";

    /** How often a session's creation selects again when an EP it selected is withdrawn before it is leased. */
    private static final int MAX_SELECTION_ATTEMPTS = 3;

    private final Map<String, String> config;
    private final EpRegistry registry;
    private final EpSelector selector;
    private final Set<InferenceSession> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicLong sessionCounter = new AtomicLong();
    private final AtomicLong queryCounter = new AtomicLong();
    private volatile boolean closed;

    /**
     * Creates an environment and registers the built-in factories, each as a library named after its EP.
     *
     * @param config the environment configuration
     * @param hardware the hardware devices
     * @param builtIn the factories found on the class or module path
     */
    RuntimeEnvironment(Map<String, String> config, List<HardwareDevice> hardware, List<EpFactory> builtIn) {
        this.config = Map.copyOf(config);
        this.registry = new EpRegistry(config, hardware);
        this.selector = new EpSelector(CPU_EP, this::vendorIdOf);
        for (EpFactory f : builtIn) {
            registry.register(f.name(), List.of(f), null);
        }
    }

    private int vendorIdOf(String epName) {
        return registry.vendorId(epName);
    }

    @Override
    public List<HardwareDevice> hardwareDevices() {
        return registry.hardware();
    }

    @Override
    public List<EpDevice> epDevices() {
        return registry.activeDevices();
    }

    @Override
    public Map<String, String> config() {
        return registry.effectiveConfig();
    }

    @Override
    public Session createSession(Path model, SessionOptions options) {
        checkOpen();
        return open(ModelReader.read(model), options);
    }

    @Override
    public Session createSession(byte[] model, SessionOptions options) {
        checkOpen();
        String folder = options.configValue(SessionOptions.MODEL_EXTERNAL_INITIALIZERS_FOLDER, null);
        return open(ModelReader.read(model, folder == null ? null : Path.of(folder)), options);
    }

    private Session open(OnnxModel model, SessionOptions options) {
        return open(model, options, null);
    }

    /**
     * Creates a session; the compile API passes how to write the compiled model.
     *
     * @param model the model
     * @param options the session options
     * @param generation how to write the compiled model, or {@code null} to follow {@code ep.context_enable}
     * @return the session
     */
    InferenceSession open(OnnxModel model, SessionOptions options, EpContextGeneration generation) {
        Map<String, String> metadata = ModelMetadata.of(model);
        String id = "s" + sessionCounter.incrementAndGet();
        SessionLease lease = new SessionLease(id, model.path().map(Object::toString).orElse("(bytes)"));
        EpSelector.Selection selection;
        Map<String, EpFactory> factories;
        for (int attempt = 1; ; attempt++) {
            selection = selector.select(options, registry.activeDevices(), metadata);
            List<String> epNames = selection.choices().stream().map(EpSelector.Choice::epName).toList();
            try {
                factories = registry.acquire(lease, epNames);
                break;
            } catch (EpUnavailableException e) {
                // A library was withdrawn between selection and leasing. A policy or delegate chooses again among
                // the devices left; devices the caller appended explicitly are the caller's to replace.
                if (!options.appendedExecutionProviders().isEmpty() || attempt >= MAX_SELECTION_ATTEMPTS) {
                    throw e;
                }
            }
        }
        try {
            List<EpBinding> bindings = new ArrayList<>();
            for (EpSelector.Choice c : selection.choices()) {
                List<SupportedDevice> devices = new ArrayList<>();
                for (EpDevice d : c.devices()) {
                    devices.add(new SupportedDevice(d.device(), d.epMetadata(), d.epOptions()));
                }
                bindings.add(new EpBinding(factories.get(c.epName()), devices));
            }
            InferenceSession[] self = new InferenceSession[1];
            self[0] = InferenceSession.create(id, model, selection.config(), options.intraOpThreads(), bindings,
                    generation, () -> {
                        sessions.remove(self[0]);
                        registry.release(lease);
                    });
            sessions.add(self[0]);
            return self[0];
        } catch (RuntimeException | Error e) {
            registry.release(lease);
            throw e;
        }
    }

    @Override
    public void registerLibrary(String name, Path jar) {
        checkOpen();
        if (name == null || name.isBlank()) {
            throw new InvalidArgumentException("an EP library needs a registration name");
        }
        if (jar == null || !Files.isRegularFile(jar)) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "EP library '" + name + "': " + jar
                    + " is not a jar file", null);
        }
        URLClassLoader loader;
        try {
            loader = new URLClassLoader("ortex-ep-" + name, new URL[] {jar.toUri().toURL()},
                    EpFactory.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library '" + name + "': bad path "
                    + jar, e);
        }
        try {
            List<EpFactory> factories = new ArrayList<>();
            for (ServiceLoader.Provider<EpFactory> p : ServiceLoader.load(EpFactory.class, loader).stream().toList()) {
                if (p.type().getClassLoader() == loader) {
                    factories.add(p.get());
                }
            }
            if (factories.isEmpty()) {
                throw new InvalidArgumentException("EP library '" + name + "': " + jar + " declares no "
                        + EpFactory.class.getName() + " provider in META-INF/services");
            }
            registry.register(name, factories, loader);
        } catch (ServiceConfigurationError e) {
            closeQuietly(loader);
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library '" + name + "': "
                    + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(loader);
            throw e;
        }
    }

    private static void closeQuietly(URLClassLoader loader) {
        try {
            loader.close();
        } catch (IOException ignored) {
            // nothing was loaded from it that needs closing
        }
    }

    @Override
    public void unregisterLibrary(String name) {
        registry.unregister(name, null);
    }

    @Override
    public void unregisterLibrary(String name, Duration timeout) {
        registry.unregister(name, timeout);
    }

    @Override
    public DeviceIncompatibility deviceIncompatibility(String epName, HardwareDevice device) {
        // the query holds a lease like a session, so that the factory cannot be released while it answers
        SessionLease lease = new SessionLease("q" + queryCounter.incrementAndGet(), "device incompatibility query");
        EpFactory f;
        try {
            f = registry.acquire(lease, List.of(epName)).get(epName);
        } catch (OrtexException e) {
            throw new InvalidArgumentException("no EP named '" + epName + "' is registered");
        }
        try {
            DeviceIncompatibility d = f.deviceIncompatibility(device);
            return d == null ? DeviceIncompatibility.COMPATIBLE : d;
        } finally {
            registry.release(lease);
        }
    }

    @Override
    public ModelCompiler modelCompiler(SessionOptions options) {
        checkOpen();
        return new RuntimeModelCompiler(this, options);
    }

    /**
     * Reads a model for the compile API, as {@link #createSession(byte[], SessionOptions)} or
     * {@link #createSession(Path, SessionOptions)} would.
     *
     * @param file the model file, or {@code null}
     * @param bytes the model bytes when {@code file} is {@code null}
     * @param options the session options (external-data folder for bytes)
     * @return the model
     */
    OnnxModel readModel(Path file, byte[] bytes, SessionOptions options) {
        checkOpen();
        if (file != null) {
            return ModelReader.read(file);
        }
        String folder = options.configValue(SessionOptions.MODEL_EXTERNAL_INITIALIZERS_FOLDER, null);
        return ModelReader.read(bytes, folder == null ? null : Path.of(folder));
    }

    @Override
    public Map<String, CompiledModelCompatibility> compiledModelCompatibility(Path model, List<EpDevice> devices) {
        checkOpen();
        if (devices == null || devices.isEmpty()) {
            throw new InvalidArgumentException("compiledModelCompatibility needs one or more EP devices");
        }
        Map<String, String> metadata = ModelReader.read(model).metadata();
        Map<String, List<HardwareDevice>> byEp = new LinkedHashMap<>();
        for (EpDevice d : devices) {
            if (d == null) {
                throw new InvalidArgumentException("compiledModelCompatibility was given a null EP device");
            }
            byEp.computeIfAbsent(d.epName(), k -> new ArrayList<>()).add(d.device());
        }
        Map<String, CompiledModelCompatibility> out = new LinkedHashMap<>();
        SessionLease lease = new SessionLease("q" + queryCounter.incrementAndGet(), "compatibility query for " + model);
        Map<String, EpFactory> factories = registry.acquire(lease, List.copyOf(byEp.keySet()));
        try {
            for (Map.Entry<String, List<HardwareDevice>> e : byEp.entrySet()) {
                String info = metadata.get(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX + e.getKey());
                if (info != null) {
                    out.put(e.getKey(), CompatibilityCheck.judge(factories.get(e.getKey()), e.getValue(), info));
                }
            }
        } finally {
            registry.release(lease);
        }
        return Collections.unmodifiableMap(out);
    }

    @Override
    public void addEpDeviceListener(EpDeviceListener listener) {
        registry.addListener(listener);
    }

    @Override
    public void removeEpDeviceListener(EpDeviceListener listener) {
        registry.removeListener(listener);
    }

    /** Describes the libraries, their states and holders; for tools and tests. */
    List<String> libraries() {
        return registry.describeLibraries();
    }

    /**
     * Gets the class loader of a library registered from a jar; for tests of unloading.
     *
     * @param name the registration name
     * @return the loader, or {@code null} for a built-in library or an unknown name
     */
    ClassLoader libraryClassLoader(String name) {
        return registry.libraryClassLoader(name);
    }

    private void checkOpen() {
        if (closed) {
            throw new OrtexException(ErrorCode.FAIL, "the environment is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        for (InferenceSession s : List.copyOf(sessions)) {
            s.close();
        }
        registry.releaseAll();
    }
}
