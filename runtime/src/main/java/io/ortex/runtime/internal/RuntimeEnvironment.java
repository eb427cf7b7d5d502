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
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimits;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's {@link Environment}: hardware devices, the EP libraries ({@link EpRegistry}), the sessions' leases on
 * them ({@link LeaseTable}) and their removal ({@link LibraryRemoval}), and the sessions open in it. Thread safe.
 */
public final class RuntimeEnvironment implements Environment {
    /** The name of the built-in CPU EP, always the fallback. */
    static final String CPU_EP = "CPUExecutionProvider";

    /** How often a session's creation selects again when an EP it selected is withdrawn before it is leased. */
    private static final int MAX_SELECTION_ATTEMPTS = 3;
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.session");

    private final Map<String, String> config;
    private final DeviceListeners listeners = new DeviceListeners();
    private final LeaseTable leases = new LeaseTable();
    private final Supplier<List<EpLibraryLoader>> loaders;
    /** The loader of each library registered through one, by registration name. */
    private final Map<String, EpLibraryLoader> loadedBy = new ConcurrentHashMap<>();
    private final EpRegistry registry;
    private final LibraryRemoval removal;
    private final EpSelector selector;
    /** The pre-packed weights that sessions with {@code session.use_env_allocators=1} share. */
    private final PrePackStore prePacks = new PrePackStore();
    private final SessionMigrator migrator;
    private final Set<InferenceSession> sessions = ConcurrentHashMap.newKeySet();
    private final SharedContextStore sharedContexts = new SharedContextStore();
    private final IntraOpPools pools = new IntraOpPools();
    private final SharedAllocators allocators = new SharedAllocators();
    private final AtomicLong sessionCounter = new AtomicLong();
    private final AtomicLong queryCounter = new AtomicLong();
    private volatile boolean closed;
    private volatile Map<String, String> limitDefaults = Map.of();

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
        this.registry = new EpRegistry(config, hardware, leases, listeners);
        this.selector = new EpSelector(CPU_EP, this::vendorIdOf);
        this.migrator = new SessionMigrator(leases, this::bind);
        limitDefaults(config);
        this.removal = new LibraryRemoval(registry, leases, new LibraryRemoval.Holders() {
            @Override
            public void removalBegun(String library, List<String> eps, List<SessionLease> holders) {
                migrator.removalBegun(library, eps, holders);
            }

            @Override
            public void fail(SessionLease holder, String reason) {
                for (InferenceSession s : sessions) {
                    if (s.id().equals(holder.sessionId())) {
                        s.fail(reason);
                    }
                }
            }

            @Override
            public void releasing(EpLibrary lib) {
                lib.factories().forEach(allocators::release);
            }
        });
        for (EpFactory f : builtIn) {
            // a built-in factory that fails is listed with the reason rather than failing the environment
            registry.register(f.name(), List.of(f), null, false);
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
        ResourceLimits limits = limits(options);
        return open(writesModel(options) ? ModelReader.read(model, limits)
                : ModelReader.readLeavingDataInFile(model, limits), options);
    }

    /**
     * Tells whether a session writes its model out (a compiled or an optimized model), and so needs its weights
     * where they were rather than left in the model file to be read when needed.
     */
    private boolean writesModel(SessionOptions options) {
        Map<String, String> environment = config();
        String context = options.configValue(SessionOptions.EP_CONTEXT_ENABLE,
                environment.getOrDefault(SessionOptions.EP_CONTEXT_ENABLE, "0"));
        String optimized = options.configValue(SessionOptions.OPTIMIZED_MODEL_FILEPATH,
                environment.getOrDefault(SessionOptions.OPTIMIZED_MODEL_FILEPATH, ""));
        return !"0".equals(context.trim()) || !optimized.isEmpty();
    }

    /** The resource limits of a session: its own entries, else the environment's, else the defaults. */
    private ResourceLimits limits(SessionOptions options) {
        return ResourceLimits.of(options.config(), limitDefaults);
    }

    /**
     * Replaces the environment's resource limits (its {@value ResourceLimits#PREFIX}* entries), which apply to the
     * sessions created from now on that do not set their own.
     *
     * @param config entries, of which those starting with {@value ResourceLimits#PREFIX} are taken
     * @throws InvalidArgumentException when a limit is not a whole number of 0 or more, naming its key
     */
    public void limitDefaults(Map<String, String> config) {
        Map<String, String> limits = new java.util.TreeMap<>();
        config.forEach((k, v) -> {
            if (k.startsWith(ResourceLimits.PREFIX)) {
                limits.put(k, v);
            }
        });
        ResourceLimits.of(Map.of(), limits);
        this.limitDefaults = Map.copyOf(limits);
    }

    @Override
    public Session createSession(byte[] model, SessionOptions options) {
        checkOpen();
        String folder = options.configValue(SessionOptions.MODEL_EXTERNAL_INITIALIZERS_FOLDER, null);
        return open(ModelReader.read(model, folder == null ? null : Path.of(folder), limits(options)), options);
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
        SessionOptions current = options;
        Set<String> skipped = new LinkedHashSet<>();
        while (true) {
            try {
                return open(model, current, generation, skipped);
            } catch (EpFailure f) {
                if (!mayGoOnWithout(current, f.epName()) || !skipped.add(f.epName())) {
                    throw f;
                }
                LOG.warn("{}: {}; creating the session without EP {} ({}=1)", model.describe(), f.getMessage(),
                        f.epName(), SessionOptions.RETRY_WITHOUT_FAILED_EP);
                current = SessionMigrator.without(current, skipped);
            }
        }
    }

    /** Tells whether session creation may go on without an EP that failed. */
    private boolean mayGoOnWithout(SessionOptions options, String epName) {
        return "1".equals(options.configValue(SessionOptions.RETRY_WITHOUT_FAILED_EP,
                SessionOptions.RETRY_WITHOUT_FAILED_EP_DEFAULT).trim())
                && !"1".equals(options.configValue(SessionOptions.DISABLE_CPU_EP_FALLBACK, "0").trim())
                && !CPU_EP.equals(epName);
    }

    private InferenceSession open(OnnxModel model, SessionOptions options, EpContextGeneration generation,
                                  Set<String> skipped) {
        Map<String, String> metadata = ModelMetadata.of(model);
        String id = "s" + sessionCounter.incrementAndGet();
        SessionLease lease = new SessionLease(id, model.path().map(Object::toString).orElse("(bytes)"));
        SessionMigrator.Bound bound = bind(lease, options, metadata, skipped);
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
                    leases.release(lease);
                };
                return InferenceSession.create(id, m, config, threads, options.profilingFile(), bound.bindings(),
                        plan, allocators, prePacks, onClose);
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
                leases.closedHeldBy(lease).forEach(lib ->
                        migrator.removalBegun(lib.name(), lib.epNames(), List.of(lease)));
            }
            return self[0];
        } catch (RuntimeException | Error e) {
            leases.release(lease);
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
        return bind(lease, options, metadata, Set.of());
    }

    /** Selects and leases a session's EPs among the active devices, leaving out the EPs named in {@code skipped}. */
    private SessionMigrator.Bound bind(SessionLease lease, SessionOptions options, Map<String, String> metadata,
                                       Set<String> skipped) {
        EpSelector.Selection selection;
        Map<String, EpLibrary> libraries;
        List<String> epNames;
        for (int attempt = 1; ; attempt++) {
            List<EpDevice> devices = registry.activeDevices().stream()
                    .filter(d -> !skipped.contains(d.epName())).toList();
            selection = selector.select(options, devices, metadata);
            epNames = selection.choices().stream().map(EpSelector.Choice::epName).toList();
            try {
                libraries = lease(lease, epNames);
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
            bindings.add(new EpBinding(libraries.get(c.epName()).factory(c.epName()), devices));
        }
        return new SessionMigrator.Bound(selection.config(), List.copyOf(bindings), epNames,
                List.copyOf(new java.util.LinkedHashSet<>(libraries.values())));
    }

    /**
     * Takes a lease on the active library of each EP, all or none.
     *
     * @param lease the session's or query's lease
     * @param epNames the EPs
     * @return each EP's library, by EP name
     * @throws EpUnavailableException when an EP's library is withdrawn meanwhile
     */
    private Map<String, EpLibrary> lease(SessionLease lease, List<String> epNames) {
        Map<String, EpLibrary> libraries = registry.providers(epNames);
        leases.acquire(lease, new java.util.LinkedHashSet<>(libraries.values()));
        return libraries;
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
        boolean named = jar != null && jar.getFileName() != null && jar.getFileName().toString().endsWith(".jar");
        if (jar != null && Files.isRegularFile(jar) && !named && !isJar(jar)) {
            registerLoaded(name, jar);
            return;
        }
        LibraryJar.Loaded loaded = LibraryJar.load(name, jar);
        try {
            registry.register(name, loaded.factories(), loaded.loader(), true);
            loadedBy.remove(name);
        } catch (RuntimeException | Error e) {
            LibraryJar.closeQuietly(loaded.loader());
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
        if (epLibraries().stream().anyMatch(l -> l.name().equals(name))) {
            // checked before loading: a native library should not be loaded only to be refused
            throw new InvalidArgumentException("an EP library is already registered under the name "
                    + Names.quote(name));
        }
        List<EpLibraryLoader> available = loaders.get();
        for (EpLibraryLoader l : available) {
            if (!l.accepts(file)) {
                continue;
            }
            LoadedEpLibrary lib = l.load(name, file, registry.effectiveConfig());
            try {
                registry.register(name, lib.factories(), lib::close, true);
            } catch (RuntimeException | Error e) {
                lib.close();
                throw e;
            }
            loadedBy.put(name, l);
            return;
        }
        String known = available.isEmpty() ? "none is installed"
                : "installed: " + available.stream().map(EpLibraryLoader::description)
                        .collect(Collectors.joining("; "));
        throw new InvalidArgumentException("EP library " + Names.quote(name) + ": " + file + " is not a jar, and no EP "
                + "library "
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

    @Override
    public void unregisterLibrary(String name) {
        removal.unregister(name, null);
        loadedBy.remove(name);
    }

    @Override
    public void unregisterLibrary(String name, Duration timeout) {
        removal.unregister(name, timeout);
        loadedBy.remove(name);
    }

    @Override
    public DeviceIncompatibility deviceIncompatibility(String epName, HardwareDevice device) {
        // the query holds a lease like a session, so that the factory cannot be released while it answers
        SessionLease lease = new SessionLease("q" + queryCounter.incrementAndGet(), "device incompatibility query");
        EpFactory f;
        try {
            f = lease(lease, List.of(epName)).get(epName).factory(epName);
        } catch (OrtexException e) {
            throw new InvalidArgumentException("no EP named " + Names.quote(epName) + " is registered");
        }
        try {
            DeviceIncompatibility d = f.deviceIncompatibility(device);
            return d == null ? DeviceIncompatibility.COMPATIBLE : d;
        } finally {
            leases.release(lease);
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
            return ModelReader.read(file, limits(options));
        }
        String folder = options.configValue(SessionOptions.MODEL_EXTERNAL_INITIALIZERS_FOLDER, null);
        return ModelReader.read(bytes, folder == null ? null : Path.of(folder), limits(options));
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
        Map<String, EpLibrary> libraries = lease(lease, List.copyOf(byEp.keySet()));
        try {
            for (Map.Entry<String, List<HardwareDevice>> e : byEp.entrySet()) {
                String info = metadata.get(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX + e.getKey());
                if (info != null) {
                    EpFactory f = libraries.get(e.getKey()).factory(e.getKey());
                    out.put(e.getKey(), CompatibilityCheck.judge(f, e.getValue(), info));
                }
            }
        } finally {
            leases.release(lease);
        }
        return Collections.unmodifiableMap(out);
    }

    @Override
    public void addEpDeviceListener(EpDeviceListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeEpDeviceListener(EpDeviceListener listener) {
        listeners.remove(listener);
    }

    /**
     * Registers an EP library made of factories the caller already holds (an OSGi bundle's {@code EpFactory}
     * services), with its virtual-device grant given explicitly. A factory that fails to list its devices offers
     * none, with the failure as the reason ({@link EpLibraryInfo#withoutDevice()}).
     *
     * @param name the registration name
     * @param factories the factories
     * @param virtualGranted whether its factories may offer virtual devices
     * @throws InvalidArgumentException when an active library has the name or one of the EP names
     */
    public void registerFactories(String name, List<EpFactory> factories, boolean virtualGranted) {
        checkOpen();
        registry.registerGranted(name, factories, virtualGranted);
    }

    /**
     * Registers an EP library in place of the active library of the same name, as when a newer version of an EP
     * bundle is installed beside the one in use: in one step the old library's devices give way to the new one's, so
     * new sessions get the new library; the old one drains on a thread of its own (the sessions that asked for it
     * are moved over, the others are waited for with the given limit and outcome) and is released once free.
     *
     * @param name the registration name
     * @param factories the new library's factories
     * @param virtualGranted whether they may offer virtual devices
     * @param limit how long the old library waits for its sessions before the outcome applies
     * @param failAtLimit whether to fail those sessions at the limit rather than keep waiting
     * @return completed once the old library is released (at once when there was none)
     * @throws InvalidArgumentException when another active library has one of the EP names
     */
    public CompletableFuture<Void> replaceLibrary(String name, List<EpFactory> factories, boolean virtualGranted,
                                                  Duration limit, boolean failAtLimit) {
        checkOpen();
        EpLibrary old = registry.replace(name, factories, virtualGranted);
        CompletableFuture<Void> drained = new CompletableFuture<>();
        if (old == null) {
            drained.complete(null);
            return drained;
        }
        List<SessionLease> held = leases.holders(old);
        Thread drain = new Thread(() -> {
            try {
                removal.drain(old, held, limit, failAtLimit ? LibraryRemoval.AtLimit.FAIL_HOLDERS
                        : LibraryRemoval.AtLimit.KEEP_WAITING);
                drained.complete(null);
            } catch (RuntimeException | Error e) {
                drained.completeExceptionally(e);
            }
        }, "ortex-drain-" + name);
        drain.setDaemon(true);
        drain.start();
        return drained;
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
     * Removes an EP library for good, blocking until it is released ({@link LibraryRemoval}): its devices are hidden
     * from selection at once, then the sessions holding it that asked for migration
     * ({@link SessionOptions#MIGRATE_ON_EP_REMOVAL}) are moved onto the remaining EPs, and the call waits for the
     * other sessions holding it to close. Each time {@code limit} passes with sessions still holding it, either those
     * sessions are failed ({@code failAtLimit}: their runs in flight complete, their next run throws
     * {@link EpUnavailableException} naming the EP, they release their EPs) or the holders are logged and the wait
     * goes on. An interrupt turns a wait into failing the holders. When the call returns, no code of the library runs
     * again. Nothing happens when no active library has that name.
     *
     * @param name the registration name
     * @param limit how long to wait before the outcome applies
     * @param failAtLimit whether to fail the holders at the limit rather than keep waiting
     */
    public void withdrawLibrary(String name, Duration limit, boolean failAtLimit) {
        beginWithdrawal(name, limit, failAtLimit).run();
    }

    /**
     * Begins {@link #withdrawLibrary}: at once the library takes no new lease and its devices are hidden, so that
     * another library may take its name; the rest is returned for the caller to run.
     *
     * @param name the registration name
     * @param limit how long to wait before the outcome applies
     * @param failAtLimit whether to fail the holders at the limit rather than keep waiting
     * @return the rest of the removal, blocking until the library is released; nothing when no active library has
     *         the name
     */
    public Runnable beginWithdrawal(String name, Duration limit, boolean failAtLimit) {
        return removal.withdraw(name, limit, failAtLimit ? LibraryRemoval.AtLimit.FAIL_HOLDERS
                : LibraryRemoval.AtLimit.KEEP_WAITING);
    }

    /** {@inheritDoc} */
    @Override
    public List<EpLibraryInfo> epLibraries() {
        return LibraryInfos.of(registry.snapshot(), leases);
    }

    /** Describes the libraries, their states and holders; for tools and tests. */
    List<String> libraries() {
        return LibraryInfos.describe(registry.snapshot(), leases);
    }

    /**
     * Gets the class loader of a library registered from a jar; for tests of unloading.
     *
     * @param name the registration name
     * @return the loader, or {@code null} for a built-in library or an unknown name
     */
    ClassLoader libraryClassLoader(String name) {
        return LibraryInfos.classLoader(registry.snapshot(), name);
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
        allocators.releaseAll();
        registry.releaseAll();
        sharedContexts.finishOpenGroup();
        pools.close();
    }

    /**
     * Gets the pre-packed weights the environment's sessions share, for tests.
     *
     * @return the store
     */
    PrePackStore prePacks() {
        return prePacks;
    }
}
