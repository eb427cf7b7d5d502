package io.ortex.runtime.internal;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.EpLibraryInfo;
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
import io.ortex.api.spi.EpLibraryLoader;
import io.ortex.api.spi.LoadedEpLibrary;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.cache.CompileCache;
import io.ortex.runtime.internal.epcontext.CompatibilityCheck;
import io.ortex.runtime.internal.epcontext.EpContextGeneration;
import io.ortex.runtime.internal.epcontext.SharedContextStore;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The runtime's {@link Environment}: hardware devices, the EP registry with its libraries and leases, and the
 * sessions open in it. Thread safe.
 */
public final class RuntimeEnvironment implements Environment {
    /** The name of the built-in CPU EP, always the fallback. */
    static final String CPU_EP = "CPUExecutionProvider";

    /** How often a session's creation selects again when an EP it selected is withdrawn before it is leased. */
    private static final int MAX_SELECTION_ATTEMPTS = 3;
    /** How long a removal that was interrupted still waits before it fails the sessions holding the library. */
    private static final Duration INTERRUPTED_GRACE = Duration.ofMillis(100);
    private static final System.Logger LOG = System.getLogger(RuntimeEnvironment.class.getName());

    private final Map<String, String> config;
    private final Supplier<List<EpLibraryLoader>> loaders;
    /** The loader of each library registered through one, by registration name. */
    private final Map<String, EpLibraryLoader> loadedBy = new ConcurrentHashMap<>();
    private final EpRegistry registry;
    private final EpSelector selector;
    private final SessionMigrator migrator;
    private final Set<InferenceSession> sessions = ConcurrentHashMap.newKeySet();
    private final SharedContextStore sharedContexts = new SharedContextStore();
    private final IntraOpPools pools = new IntraOpPools();
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
        this(config, hardware, builtIn, List::of);
    }

    /**
     * Creates an environment, registers the built-in factories, and loads libraries that are not jars with the
     * given loaders.
     *
     * @param config the environment configuration
     * @param hardware the hardware devices
     * @param builtIn the factories found on the class or module path
     * @param loaders the EP library loaders available now, asked at each registration
     */
    RuntimeEnvironment(Map<String, String> config, List<HardwareDevice> hardware, List<EpFactory> builtIn,
                       Supplier<List<EpLibraryLoader>> loaders) {
        this.loaders = loaders;
        this.config = Map.copyOf(config);
        this.registry = new EpRegistry(config, hardware);
        this.selector = new EpSelector(CPU_EP, this::vendorIdOf);
        this.migrator = new SessionMigrator(registry, this::bind);
        registry.onRemoval(migrator::removalBegun);
        for (EpFactory f : builtIn) {
            registry.register(f.name(), List.of(f), null);
        }
    }

    /**
     * Creates an environment with no EP library; the OSGi wiring registers the EP bundles' factories as they come.
     *
     * @param config the environment configuration
     * @param hardware the hardware devices
     */
    public RuntimeEnvironment(Map<String, String> config, List<HardwareDevice> hardware) {
        this(config, hardware, List.of());
    }

    /**
     * Creates an environment with no EP library, which loads libraries that are not jars with the given loaders (the
     * OSGi wiring passes the loader services it tracks).
     *
     * @param config the environment configuration
     * @param hardware the hardware devices
     * @param loaders the EP library loaders available now, asked at each registration
     */
    public RuntimeEnvironment(Map<String, String> config, List<HardwareDevice> hardware,
                              Supplier<List<EpLibraryLoader>> loaders) {
        this(config, hardware, List.of(), loaders);
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
        SessionMigrator.Bound bound = bind(lease, options, metadata);
        try {
            InferenceSession[] self = new InferenceSession[1];
            CachedCompilation.Opener opener = (m, config, plan) -> {
                if (plan != null) {
                    plan.sharing(sharedContexts);
                }
                IntraOpPool threads = pools.get(options.intraOpThreads(), !"0".equals(config.getOrDefault(
                        SessionOptions.INTRA_OP_ALLOW_SPINNING, SessionOptions.INTRA_OP_ALLOW_SPINNING_DEFAULT)));
                Runnable onClose = () -> {
                    sessions.remove(self[0]);
                    migrator.forget(id);
                    registry.release(lease);
                };
                return InferenceSession.create(id, m, config, threads, options.profilingFile(), bound.bindings(),
                        plan, onClose);
            };
            CompileCache cache = generation != null ? null
                    : CompileCache.configured(options.config(), registry.effectiveConfig());
            if (cache != null && CachedCompilation.applies(model, bound.config())) {
                self[0] = CachedCompilation.open(cache, model, bound.config(), bound.bindings(), opener);
            } else {
                self[0] = opener.open(model, bound.config(), generation != null ? generation
                        : EpContextGeneration.fromSessionConfig(model, bound.config()));
            }
            sessions.add(self[0]);
            if (SessionMigrator.wanted(options)) {
                migrator.track(self[0], lease, options, metadata);
                // a removal that began after the leases were taken but before the session was followed missed it
                registry.drainingHeldBy(lease).forEach((library, eps) ->
                        migrator.removalBegun(library, eps, List.of(lease)));
            }
            return self[0];
        } catch (RuntimeException | Error e) {
            registry.release(lease);
            throw e;
        }
    }

    /**
     * Selects a session's EPs among the active devices and takes leases on their libraries, selecting again when a
     * library is withdrawn in between (unless the EPs were appended explicitly).
     *
     * @param lease the session's lease
     * @param options the session options
     * @param metadata the model's metadata, for a delegate
     * @return the EPs chosen, leased
     */
    private SessionMigrator.Bound bind(SessionLease lease, SessionOptions options, Map<String, String> metadata) {
        EpSelector.Selection selection;
        Map<String, EpFactory> factories;
        List<String> epNames;
        for (int attempt = 1; ; attempt++) {
            selection = selector.select(options, registry.activeDevices(), metadata);
            epNames = selection.choices().stream().map(EpSelector.Choice::epName).toList();
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
        List<EpBinding> bindings = new ArrayList<>();
        for (EpSelector.Choice c : selection.choices()) {
            List<SupportedDevice> devices = new ArrayList<>();
            for (EpDevice d : c.devices()) {
                devices.add(new SupportedDevice(d.device(), d.epMetadata(), d.epOptions()));
            }
            bindings.add(new EpBinding(factories.get(c.epName()), devices));
        }
        return new SessionMigrator.Bound(selection.config(), List.copyOf(bindings), epNames);
    }

    /**
     * {@inheritDoc} A file that is not a jar (no zip signature) goes to the first {@link EpLibraryLoader} that accepts
     * it, such as the ONNX Runtime EP's loader of native plugin-EP libraries.
     */
    @Override
    public void registerLibrary(String name, Path jar) {
        checkOpen();
        if (name == null || name.isBlank()) {
            throw new InvalidArgumentException("an EP library needs a registration name");
        }
        if (jar == null || !Files.isRegularFile(jar)) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "EP library '" + name + "': " + jar
                    + (jar != null && Files.exists(jar) ? " is not a regular file" : " does not exist"), null);
        }
        if (!isJar(jar)) {
            registerLoaded(name, jar);
            return;
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
            loadedBy.remove(name);
        } catch (ServiceConfigurationError e) {
            closeQuietly(loader);
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library '" + name + "': "
                    + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(loader);
            throw e;
        }
    }

    /** Tells a jar by its zip signature, or by its name when the file cannot be read. */
    private static boolean isJar(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(4);
            return head.length == 4 && head[0] == 'P' && head[1] == 'K' && head[2] == 3 && head[3] == 4;
        } catch (IOException e) {
            return file.getFileName().toString().endsWith(".jar");
        }
    }

    /** Registers a library that is not a jar through the first loader that accepts it. */
    private void registerLoaded(String name, Path file) {
        if (registry.libraryInfos().stream().anyMatch(l -> l.name().equals(name))) {
            // checked before loading: a native library should not be loaded only to be refused
            throw new InvalidArgumentException("an EP library is already registered under the name '" + name + "'");
        }
        List<EpLibraryLoader> available = loaders.get();
        for (EpLibraryLoader l : available) {
            if (!l.accepts(file)) {
                continue;
            }
            LoadedEpLibrary lib = l.load(name, file, registry.effectiveConfig());
            try {
                registry.register(name, lib.factories(), lib::close);
            } catch (RuntimeException | Error e) {
                lib.close();
                throw e;
            }
            loadedBy.put(name, l);
            return;
        }
        String known = available.isEmpty() ? "none is installed"
                : "installed: " + available.stream().map(EpLibraryLoader::description).collect(Collectors.joining("; "));
        throw new InvalidArgumentException("EP library '" + name + "': " + file + " is not a jar, and no EP library "
                + "loader takes it (" + known + ")");
    }

    /**
     * Removes every library that a loader loaded, as {@link #withdrawLibrary} does, before that loader goes away.
     *
     * @param loader the loader
     * @param limit how long to wait before the outcome applies
     * @param failAtLimit whether to fail the holders at the limit rather than keep waiting
     */
    public void withdrawLoadedBy(EpLibraryLoader loader, Duration limit, boolean failAtLimit) {
        for (Map.Entry<String, EpLibraryLoader> e : List.copyOf(loadedBy.entrySet())) {
            if (e.getValue() == loader) {
                withdrawLibrary(e.getKey(), limit, failAtLimit);
                loadedBy.remove(e.getKey(), loader);
            }
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
        loadedBy.remove(name);
    }

    @Override
    public void unregisterLibrary(String name, Duration timeout) {
        registry.unregister(name, timeout);
        loadedBy.remove(name);
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

    /**
     * Registers an EP library made of factories the caller already holds (an OSGi bundle's {@code EpFactory}
     * services), with its virtual-device grant given explicitly.
     *
     * @param name the registration name
     * @param factories the factories
     * @param virtualGranted whether its factories may offer virtual devices
     * @throws InvalidArgumentException when the name or an EP name is taken, or a factory is invalid
     */
    public void registerFactories(String name, List<EpFactory> factories, boolean virtualGranted) {
        checkOpen();
        registry.registerGranted(name, factories, virtualGranted);
    }

    /**
     * Adds factories to a registered library (one more {@code EpFactory} service of the same bundle).
     *
     * @param name the registration name
     * @param factories the factories to add
     * @throws InvalidArgumentException when the library is not active or an EP name is taken
     */
    public void addFactories(String name, List<EpFactory> factories) {
        checkOpen();
        registry.extend(name, factories);
    }

    /**
     * Changes a library's virtual-device grant; its factories are asked for their devices again at once.
     *
     * @param name the registration name
     * @param virtualGranted the new grant
     * @return whether anything changed
     */
    public boolean regrantVirtualDevices(String name, boolean virtualGranted) {
        return registry.regrant(name, virtualGranted);
    }

    /**
     * Removes an EP library for good, blocking until it is released: its devices are hidden from selection at once,
     * then the sessions holding it that asked for migration ({@link SessionOptions#MIGRATE_ON_EP_REMOVAL}) are
     * moved onto the remaining EPs, and the call waits for the other sessions holding it to close. Each time
     * {@code limit} passes with sessions still holding it, either those sessions are failed ({@code failAtLimit}: their runs in flight complete, their next
     * run throws {@link EpUnavailableException} naming the EP, they release their EPs) or the holders are logged and
     * the wait goes on. An interrupt turns a wait into failing the holders. When the call returns, no code of the
     * library runs again. Nothing happens when no active library has that name.
     *
     * @param name the registration name
     * @param limit how long to wait before the outcome applies
     * @param failAtLimit whether to fail the holders at the limit rather than keep waiting
     */
    public void withdrawLibrary(String name, Duration limit, boolean failAtLimit) {
        List<String> eps = registry.beginRemoval(name);
        if (eps == null) {
            return;
        }
        List<SessionLease> held = registry.holders(name);
        if (!held.isEmpty()) {
            migrator.removalBegun(name, eps, held);
        }
        boolean fail = failAtLimit;
        boolean interrupted = false;
        Duration wait = limit;
        long started = System.nanoTime();
        try {
            while (true) {
                List<SessionLease> holders;
                try {
                    holders = registry.awaitHolders(name, wait);
                } catch (InterruptedException e) {
                    // whoever interrupts a removal wants it over: fail the holders after a short grace period
                    interrupted = true;
                    fail = true;
                    wait = INTERRUPTED_GRACE;
                    continue;
                }
                if (holders.isEmpty()) {
                    return;
                }
                long waited = Duration.ofNanos(System.nanoTime() - started).toSeconds();
                if (!fail) {
                    LOG.log(System.Logger.Level.WARNING, "EP library '" + name + "' (" + String.join(", ", eps)
                            + ") is still held after " + waited + " s by " + holders + "; waiting for them to close");
                    continue;
                }
                for (SessionLease lease : holders) {
                    for (InferenceSession s : sessions) {
                        if (s.id().equals(lease.sessionId())) {
                            LOG.log(System.Logger.Level.WARNING, "failing session " + lease + ": it still holds EP "
                                    + "library '" + name + "' after " + waited + " s");
                            s.fail("EP " + String.join(", ", eps) + " is unavailable: its library '" + name
                                    + "' was removed while session " + s.id() + " held it");
                        }
                    }
                }
            }
        } finally {
            registry.finishRemoval(name);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@inheritDoc} */
    @Override
    public List<EpLibraryInfo> epLibraries() {
        return registry.libraryInfos();
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
        sharedContexts.discard();
        pools.close();
    }
}
