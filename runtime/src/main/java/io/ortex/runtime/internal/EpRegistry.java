package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.EpInUseException;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.Environment;
import io.ortex.api.ErrorCode;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.SupportedDevice;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * The EP libraries of an environment and the leases sessions hold on them. ONNX Runtime leaves the safety of
 * unregistration to the caller; here it is enforced: a library whose EPs a session holds is never released, its
 * removal either fails listing those sessions or waits for them, and its devices are hidden from selection as soon
 * as its removal begins. Thread safe: one lock guards the libraries, their states and their leases.
 */
final class EpRegistry {
    private static final System.Logger LOG = System.getLogger(EpRegistry.class.getName());
    private static final Pattern SEMVER = Pattern.compile(
            "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final Map<String, EpLibrary> libraries = new LinkedHashMap<>();
    private final Map<String, EpLibrary> byEpName = new HashMap<>();
    private final Map<String, String> baseConfig;
    private final List<HardwareDevice> hardware;
    private final List<EpDeviceListener> listeners = new CopyOnWriteArrayList<>();
    private volatile List<EpDevice> activeDevices = List.of();
    private volatile RemovalHook removalHook = (library, eps, holders) -> { };
    private int virtualLibraries;

    /** Told when the removal of a held library begins, before the removal waits for the holders. */
    @FunctionalInterface
    interface RemovalHook {
        /**
         * Called on the removing thread, with no lock held; the removal waits for it to return.
         *
         * @param library the library's registration name
         * @param eps the names of its EPs
         * @param holders the leases on it when its removal began
         */
        void removalBegun(String library, List<String> eps, List<SessionLease> holders);
    }

    EpRegistry(Map<String, String> baseConfig, List<HardwareDevice> hardware) {
        this.baseConfig = Map.copyOf(baseConfig);
        this.hardware = List.copyOf(hardware);
    }

    /**
     * The environment configuration as factories see it: the base entries, plus {@code allow_virtual_devices=1}
     * while a library registered under a {@code .virtual} name is present.
     */
    Map<String, String> effectiveConfig() {
        lock.lock();
        try {
            return configWith(virtualLibraries > 0);
        } finally {
            lock.unlock();
        }
    }

    private Map<String, String> configWith(boolean virtual) {
        if (!virtual) {
            return baseConfig;
        }
        Map<String, String> c = new LinkedHashMap<>(baseConfig);
        c.put(Environment.ALLOW_VIRTUAL_DEVICES, "1");
        return Map.copyOf(c);
    }

    /**
     * Registers a library: asks each factory for its devices and publishes them, all or nothing.
     *
     * @param name the registration name
     * @param factories the library's factories
     * @param classLoader the library's own class loader, closed when it is released; {@code null} for built-ins
     */
    void register(String name, List<EpFactory> factories, Closeable classLoader) {
        register(name, factories, classLoader, name.endsWith(Environment.VIRTUAL_SUFFIX), true);
    }

    /**
     * Registers a library whose virtual-device grant is given rather than read from its name, as the OSGi wiring
     * does for the bundles ConfigAdmin grants; only a granted library's factories see
     * {@code allow_virtual_devices=1} (unless the base configuration has it).
     *
     * @param name the registration name
     * @param factories the library's factories
     * @param virtual whether the library may offer virtual devices
     */
    void registerGranted(String name, List<EpFactory> factories, boolean virtual) {
        register(name, factories, null, virtual, false);
    }

    private void register(String name, List<EpFactory> factories, Closeable classLoader, boolean virtual,
                          boolean followOtherVirtualLibraries) {
        List<EpDevice> added;
        lock.lock();
        try {
            if (libraries.containsKey(name)) {
                throw new InvalidArgumentException("an EP library is already registered under the name '" + name + "'");
            }
            Map<String, String> config = configWith(virtual
                    || (followOtherVirtualLibraries && virtualLibraries > 0));
            added = new ArrayList<>();
            Map<String, Integer> vendorIds = new HashMap<>();
            for (EpFactory f : factories) {
                if (byEpName.containsKey(f.name())) {
                    throw new InvalidArgumentException("EP library '" + name + "' has a factory named '" + f.name()
                            + "', which library '" + byEpName.get(f.name()).name() + "' already provides");
                }
                added.addAll(devicesOf(name, f, config));
                vendorIds.put(f.name(), f.vendorId());
            }
            EpLibrary lib = new EpLibrary(name, factories, added, vendorIds, classLoader, virtual);
            libraries.put(name, lib);
            for (EpFactory f : factories) {
                byEpName.put(f.name(), lib);
            }
            if (virtual) {
                virtualLibraries++;
            }
            publish();
        } finally {
            lock.unlock();
        }
        for (EpDeviceListener l : listeners) {
            notify(() -> l.added(name, added));
        }
    }

    private List<EpDevice> devicesOf(String library, EpFactory f, Map<String, String> config) {
        String version = f.version();
        if (version == null || !SEMVER.matcher(version).matches()) {
            throw new InvalidArgumentException("EP factory '" + f.name() + "' of library '" + library
                    + "' has version '" + version + "', which is not SemVer 2.0");
        }
        List<SupportedDevice> supported;
        try {
            supported = f.supportedDevices(hardware, config);
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "EP factory '" + f.name() + "' of library '" + library
                    + "' failed to list its devices: " + e, e);
        }
        List<EpDevice> out = new ArrayList<>();
        for (SupportedDevice d : supported == null ? List.<SupportedDevice>of() : supported) {
            if (d == null) {
                continue;
            }
            if (d.epMetadata().containsKey(EpDevice.VERSION)) {
                throw new InvalidArgumentException("EP factory '" + f.name() + "' must not set the 'version' "
                        + "metadata itself");
            }
            Map<String, String> metadata = new LinkedHashMap<>(d.epMetadata());
            metadata.put(EpDevice.VERSION, version);
            out.add(new EpDevice(f.name(), f.vendor(), metadata, d.epOptions(), d.device()));
        }
        return out;
    }

    /**
     * Sets what is told when the removal of a held library begins (the environment moves migrating sessions off it).
     *
     * @param hook the hook
     */
    void onRemoval(RemovalHook hook) {
        this.removalHook = hook;
    }

    /**
     * Unregisters a library. With a timeout, the removal hook is told about the holders before the wait begins.
     *
     * @param name the registration name
     * @param timeout how long to wait for the sessions holding it; {@code null} or zero to fail at once
     */
    void unregister(String name, Duration timeout) {
        EpLibrary lib;
        List<EpDevice> withdrawn;
        List<SessionLease> held;
        long deadline = System.nanoTime() + (timeout == null ? 0 : timeout.toNanos());
        lock.lock();
        try {
            lib = libraries.get(name);
            if (lib == null || lib.state() == EpLibrary.State.RELEASED) {
                throw new InvalidArgumentException("no EP library is registered under the name '" + name + "'");
            }
            if (lib.state() == EpLibrary.State.DRAINING) {
                throw new OrtexException(ErrorCode.FAIL, "EP library '" + name + "' is already being removed");
            }
            boolean wait = timeout != null && !timeout.isZero() && !timeout.isNegative();
            if (!lib.holders().isEmpty() && !wait) {
                throw new EpInUseException(name, describe(lib.holders()), false);
            }
            lib.state(EpLibrary.State.DRAINING);
            publish();
            withdrawn = lib.devices();
            held = List.copyOf(lib.holders());
        } finally {
            lock.unlock();
        }
        for (EpDeviceListener l : listeners) {
            notify(() -> l.removed(name, withdrawn));
        }
        if (!held.isEmpty()) {
            removalHook.removalBegun(name, lib.factories().stream().map(EpFactory::name).toList(), held);
        }
        boolean drained = false;
        boolean interrupted = false;
        List<String> holders = List.of();
        lock.lock();
        try {
            while (!lib.holders().isEmpty() && !interrupted) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    released.awaitNanos(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            drained = lib.holders().isEmpty();
            if (drained) {
                libraries.remove(name);
                for (EpFactory f : lib.factories()) {
                    byEpName.remove(f.name());
                }
                if (lib.isVirtual()) {
                    virtualLibraries--;
                }
                lib.release(LOG);
            } else {
                holders = describe(lib.holders());
                lib.state(EpLibrary.State.ACTIVE);
                publish();
            }
        } finally {
            lock.unlock();
        }
        if (!drained) {
            for (EpDeviceListener l : listeners) {
                notify(() -> l.added(name, withdrawn));
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
                throw new OrtexException(ErrorCode.FAIL, "interrupted while waiting to remove EP library '" + name
                        + "'; it stays registered");
            }
            throw new EpInUseException(name, holders, true);
        }
    }

    /**
     * Adds factories to an active library, as when an OSGi bundle registers one more {@code EpFactory} service; the
     * new factories are asked for their devices, which are published with the library's.
     *
     * @param name the registration name
     * @param more the factories to add
     * @throws InvalidArgumentException when the library is not active or an EP name is taken
     */
    void extend(String name, List<EpFactory> more) {
        List<EpDevice> added = new ArrayList<>();
        lock.lock();
        try {
            EpLibrary lib = libraries.get(name);
            if (lib == null || lib.state() != EpLibrary.State.ACTIVE) {
                throw new InvalidArgumentException("no active EP library is registered under the name '" + name + "'");
            }
            Map<String, Integer> vendorIds = new HashMap<>();
            lib.factories().forEach(f -> vendorIds.put(f.name(), lib.vendorId(f.name())));
            for (EpFactory f : more) {
                if (byEpName.containsKey(f.name())) {
                    throw new InvalidArgumentException("EP library '" + name + "' has a factory named '" + f.name()
                            + "', which library '" + byEpName.get(f.name()).name() + "' already provides");
                }
                added.addAll(devicesOf(name, f, configWith(lib.isVirtual())));
                vendorIds.put(f.name(), f.vendorId());
            }
            List<EpFactory> all = new ArrayList<>(lib.factories());
            all.addAll(more);
            List<EpDevice> devices = new ArrayList<>(lib.devices());
            devices.addAll(added);
            EpLibrary next = lib.replaced(all, devices, vendorIds, lib.isVirtual());
            libraries.put(name, next);
            all.forEach(f -> byEpName.put(f.name(), next));
            publish();
        } finally {
            lock.unlock();
        }
        for (EpDeviceListener l : listeners) {
            notify(() -> l.added(name, added));
        }
    }

    /**
     * Changes whether an active library may offer virtual devices: its factories are asked for their devices again
     * and the selectable devices change at once; sessions keep the devices they already hold.
     *
     * @param name the registration name
     * @param virtual the new grant
     * @return whether the library's grant changed (false when it is unknown, not active, or already so)
     */
    boolean regrant(String name, boolean virtual) {
        List<EpDevice> before;
        List<EpDevice> after = new ArrayList<>();
        lock.lock();
        try {
            EpLibrary lib = libraries.get(name);
            if (lib == null || lib.state() != EpLibrary.State.ACTIVE || lib.isVirtual() == virtual) {
                return false;
            }
            Map<String, Integer> vendorIds = new HashMap<>();
            for (EpFactory f : lib.factories()) {
                after.addAll(devicesOf(name, f, configWith(virtual)));
                vendorIds.put(f.name(), lib.vendorId(f.name()));
            }
            before = lib.devices();
            EpLibrary next = lib.replaced(lib.factories(), after, vendorIds, virtual);
            libraries.put(name, next);
            lib.factories().forEach(f -> byEpName.put(f.name(), next));
            virtualLibraries += virtual ? 1 : -1;
            publish();
        } finally {
            lock.unlock();
        }
        if (!before.equals(after)) {
            for (EpDeviceListener l : listeners) {
                if (!before.isEmpty()) {
                    notify(() -> l.removed(name, before));
                }
                if (!after.isEmpty()) {
                    notify(() -> l.added(name, after));
                }
            }
        }
        return true;
    }

    /**
     * Starts removing a library for good, as when its OSGi bundle stops: its devices are hidden from selection and
     * the listeners told, at once. The library stays until {@link #finishRemoval}.
     *
     * @param name the registration name
     * @return the names of the library's EPs, or {@code null} when no active library has that name
     */
    List<String> beginRemoval(String name) {
        List<EpDevice> withdrawn;
        List<String> eps = new ArrayList<>();
        lock.lock();
        try {
            EpLibrary lib = libraries.get(name);
            if (lib == null || lib.state() != EpLibrary.State.ACTIVE) {
                return null;
            }
            lib.state(EpLibrary.State.DRAINING);
            publish();
            withdrawn = lib.devices();
            byEpName.forEach((ep, l) -> {
                if (l == lib) {
                    eps.add(ep);
                }
            });
        } finally {
            lock.unlock();
        }
        for (EpDeviceListener l : listeners) {
            notify(() -> l.removed(name, withdrawn));
        }
        return eps;
    }

    /**
     * Waits for the holders of a library being removed to release it.
     *
     * @param name the registration name
     * @param timeout how long to wait at most
     * @return the leases still held at the end, empty when the library is free (or gone)
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    List<SessionLease> awaitHolders(String name, Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                EpLibrary lib = libraries.get(name);
                if (lib == null || lib.holders().isEmpty()) {
                    return List.of();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return List.copyOf(lib.holders());
                }
                released.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gets the leases on a library now.
     *
     * @param name the registration name
     * @return the leases, empty when the library is free or unknown
     */
    List<SessionLease> holders(String name) {
        lock.lock();
        try {
            EpLibrary lib = libraries.get(name);
            return lib == null ? List.of() : List.copyOf(lib.holders());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gets the libraries being removed that a lease holds.
     *
     * @param session the lease
     * @return the names of each such library's EPs, by registration name
     */
    Map<String, List<String>> drainingHeldBy(SessionLease session) {
        lock.lock();
        try {
            Map<String, List<String>> out = new LinkedHashMap<>();
            for (EpLibrary lib : libraries.values()) {
                if (lib.state() == EpLibrary.State.DRAINING && lib.holders().contains(session)) {
                    out.put(lib.name(), lib.factories().stream().map(EpFactory::name).toList());
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the removal {@link #beginRemoval} started: the library is released and forgotten. The caller must have
     * seen {@link #awaitHolders} come back empty, or failed every holder.
     *
     * @param name the registration name
     */
    void finishRemoval(String name) {
        lock.lock();
        try {
            EpLibrary lib = libraries.get(name);
            if (lib == null || lib.state() != EpLibrary.State.DRAINING) {
                return;
            }
            if (!lib.holders().isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, "EP library '" + name + "' is released while "
                        + describe(lib.holders()) + " still hold it");
            }
            libraries.remove(name);
            for (EpFactory f : lib.factories()) {
                byEpName.remove(f.name());
            }
            if (lib.isVirtual()) {
                virtualLibraries--;
            }
            lib.release(LOG);
        } finally {
            lock.unlock();
        }
    }

    private static List<String> describe(Collection<SessionLease> sessions) {
        List<String> out = new ArrayList<>();
        for (SessionLease s : sessions) {
            out.add(s.toString());
        }
        return out;
    }

    /** Recomputes the selectable devices: those of active libraries, in registration order. */
    private void publish() {
        List<EpDevice> all = new ArrayList<>();
        for (EpLibrary lib : libraries.values()) {
            if (lib.state() == EpLibrary.State.ACTIVE) {
                all.addAll(lib.devices());
            }
        }
        activeDevices = List.copyOf(all);
    }

    private static void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "an EP device listener failed", e);
        }
    }

    /** The EP devices that can be selected now, in registration order. */
    List<EpDevice> activeDevices() {
        return activeDevices;
    }

    /**
     * Gets the PCI vendor id an EP's factory reported when its library was registered, without calling the factory.
     *
     * @param epName the EP name
     * @return the vendor id, 0 when no library provides the EP
     */
    int vendorId(String epName) {
        lock.lock();
        try {
            EpLibrary lib = byEpName.get(epName);
            return lib == null ? 0 : lib.vendorId(epName);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes leases for a session on the libraries of the given EPs, all or none.
     *
     * @param session the session
     * @param epNames the EPs it will use
     * @return the factory of each EP, by name, safe to use until the lease is released
     * @throws EpUnavailableException when one of them is no longer active
     */
    Map<String, EpFactory> acquire(SessionLease session, Collection<String> epNames) {
        lock.lock();
        try {
            Map<String, EpFactory> factories = new HashMap<>();
            List<EpLibrary> libs = new ArrayList<>();
            for (String ep : epNames) {
                EpLibrary lib = byEpName.get(ep);
                if (lib == null || lib.state() != EpLibrary.State.ACTIVE) {
                    throw new EpUnavailableException("EP " + ep + " became unavailable while the session was being "
                            + "created" + (lib == null ? "" : ": its library '" + lib.name() + "' is being removed"));
                }
                libs.add(lib);
                lib.factories().stream().filter(f -> f.name().equals(ep)).forEach(f -> factories.put(ep, f));
            }
            libs.forEach(l -> l.holders().add(session));
            return factories;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Releases a session's leases; a library waiting to be removed proceeds once its last lease is gone.
     *
     * @param session the session
     */
    void release(SessionLease session) {
        lock.lock();
        try {
            for (EpLibrary lib : libraries.values()) {
                lib.holders().remove(session);
            }
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Keeps a session's leases only on the libraries of the given EPs, as after the session moved onto other EPs; a
     * library waiting to be removed proceeds once its last lease is gone.
     *
     * @param session the session
     * @param epNames the EPs it uses now
     */
    void retain(SessionLease session, Collection<String> epNames) {
        lock.lock();
        try {
            for (EpLibrary lib : libraries.values()) {
                if (lib.factories().stream().noneMatch(f -> epNames.contains(f.name()))) {
                    lib.holders().remove(session);
                }
            }
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Describes the libraries for tools: name, state and holders.
     *
     * @return one line per library
     */
    List<String> describeLibraries() {
        lock.lock();
        try {
            List<String> out = new ArrayList<>();
            for (EpLibrary lib : libraries.values()) {
                out.add(lib.name() + " " + lib.state() + " " + describe(lib.holders()));
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a snapshot of the libraries that are selectable or draining, with the ids of the sessions holding them.
     *
     * @return one entry per library, in registration order
     */
    List<EpLibraryInfo> libraryInfos() {
        lock.lock();
        try {
            List<EpLibraryInfo> out = new ArrayList<>();
            for (EpLibrary lib : libraries.values()) {
                EpLibraryInfo.State state = switch (lib.state()) {
                    case ACTIVE -> EpLibraryInfo.State.ACTIVE;
                    case DRAINING -> EpLibraryInfo.State.DRAINING;
                    case RELEASED -> null;
                };
                if (state != null) {
                    out.add(new EpLibraryInfo(lib.name(), state, lib.devices(),
                            lib.holders().stream().map(SessionLease::sessionId).toList()));
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gets the class loader of a registered library, for tests that check it can be collected once released.
     *
     * @param name the registration name
     * @return the loader, or {@code null} for a built-in library or an unknown name
     */
    ClassLoader libraryClassLoader(String name) {
        lock.lock();
        try {
            EpLibrary lib = libraries.get(name);
            return lib != null && lib.classLoader() instanceof ClassLoader l ? l : null;
        } finally {
            lock.unlock();
        }
    }

    void addListener(EpDeviceListener l) {
        listeners.add(l);
    }

    void removeListener(EpDeviceListener l) {
        listeners.remove(l);
    }

    List<HardwareDevice> hardware() {
        return hardware;
    }

    /** Releases every library, at environment close, after its sessions were closed. */
    void releaseAll() {
        lock.lock();
        try {
            for (EpLibrary lib : libraries.values()) {
                lib.release(LOG);
            }
            libraries.clear();
            byEpName.clear();
            publish();
        } finally {
            lock.unlock();
        }
    }
}
