package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.spi.EpFactory;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EP libraries of an environment: registering them (with the devices their factories offer, under the
 * virtual-device grants), which library provides each EP, which devices can be selected, and each library's state.
 * ONNX Runtime leaves the safety of unregistration to the caller; here a library's removal goes through
 * {@link LibraryRemoval}, which hides it ({@link #hide}) and releases it ({@link #forget}) only once the
 * {@link LeaseTable} says no session holds it. A library's lease entry lives exactly as long as the library is here.
 *
 * <p>Names: at most one active library per registration name and per EP name. A library registered from a jar or
 * the class path takes a name no other library has, active or draining; an EP bundle's library may take the name of
 * a draining library (an older version of the bundle), or replace the active one of that name ({@link #replace}).
 *
 * <p>Thread safe: one lock guards the table; factories and listeners are called with no lock held. Lock order: this
 * registry's lock, then the lease table's.
 */
final class EpRegistry {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.registry");

    private final ReentrantLock lock = new ReentrantLock();
    private final List<EpLibrary> libraries = new ArrayList<>();
    private final Map<String, EpLibrary> providers = new HashMap<>();
    private final Map<String, String> baseConfig;
    private final List<HardwareDevice> hardware;
    private final LeaseTable leases;
    private final DeviceListeners listeners;
    private volatile List<EpDevice> activeDevices = List.of();

    /**
     * Creates an empty registry.
     *
     * @param baseConfig the environment configuration
     * @param hardware the hardware devices
     * @param leases the lease table, whose entries follow the libraries here
     * @param listeners told when devices arrive and leave
     */
    EpRegistry(Map<String, String> baseConfig, List<HardwareDevice> hardware, LeaseTable leases,
               DeviceListeners listeners) {
        this.baseConfig = Map.copyOf(baseConfig);
        this.hardware = List.copyOf(hardware);
        this.leases = leases;
        this.listeners = listeners;
    }

    /**
     * The environment configuration as factories see it: the base entries, plus {@code allow_virtual_devices=1}
     * while a library allowed to offer virtual devices is present.
     */
    Map<String, String> effectiveConfig() {
        lock.lock();
        try {
            return configWith(libraries.stream().anyMatch(EpLibrary::isVirtual));
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

    List<HardwareDevice> hardware() {
        return hardware;
    }

    /** The EP devices that can be selected now, in registration order. */
    List<EpDevice> activeDevices() {
        return activeDevices;
    }

    /**
     * Registers a library from a jar or the class path under a name no other library has. A name ending in
     * {@code .virtual} lets its factories offer virtual devices, and while such a library is present the libraries
     * registered after it may too.
     *
     * @param name the registration name
     * @param factories the library's factories
     * @param classLoader the library's own class loader, closed when it is released; {@code null} for built-ins
     * @param strict whether a factory that fails to list its devices fails the registration; otherwise the library
     *               is registered and that EP offers no device, the failure being the reason
     * @return the library
     * @throws InvalidArgumentException when the name or an EP name is taken, or (strict) a factory is invalid
     */
    EpLibrary register(String name, List<EpFactory> factories, Closeable classLoader, boolean strict) {
        boolean virtual = name.endsWith(Environment.VIRTUAL_SUFFIX);
        Map<String, String> config;
        lock.lock();
        try {
            checkFree(name, factories, null, true);
            config = configWith(virtual || libraries.stream().anyMatch(EpLibrary::isVirtual));
        } finally {
            lock.unlock();
        }
        EpLibrary lib = new EpLibrary(name, list(name, factories, config, strict), classLoader, virtual);
        add(lib, null, true);
        return lib;
    }

    /**
     * Registers an EP bundle's library, whose virtual-device grant is given rather than read from its name. Its
     * factories are asked for their devices; one that fails offers none, with the failure as the reason.
     *
     * @param name the registration name (the bundle's symbolic name)
     * @param factories the factories
     * @param virtual whether the library may offer virtual devices
     * @return the library
     * @throws InvalidArgumentException when an active library has the name or one of the EP names
     */
    EpLibrary registerGranted(String name, List<EpFactory> factories, boolean virtual) {
        lock.lock();
        try {
            checkFree(name, factories, null, false);
        } finally {
            lock.unlock();
        }
        EpLibrary lib = new EpLibrary(name, list(name, factories, configWith(virtual), false), null, virtual);
        add(lib, null, false);
        return lib;
    }

    /**
     * Registers an EP bundle's library in place of the active library of the same name (an older version of the
     * bundle), in one step: the old library takes no new lease, its devices are hidden and the new library's take
     * their place. The caller then drains the old library ({@link LibraryRemoval#drain}).
     *
     * @param name the registration name
     * @param factories the new library's factories
     * @param virtual whether the new library may offer virtual devices
     * @return the library replaced, now draining; {@code null} when no active library had the name (the new one is
     *         registered all the same)
     */
    EpLibrary replace(String name, List<EpFactory> factories, boolean virtual) {
        EpLibrary old;
        lock.lock();
        try {
            old = active(name);
            checkFree(name, factories, old, false);
        } finally {
            lock.unlock();
        }
        EpLibrary lib = new EpLibrary(name, list(name, factories, configWith(virtual), false), null, virtual);
        return add(lib, old, false);
    }

    private List<FactoryDevices.Listing> list(String name, List<EpFactory> factories, Map<String, String> config,
                                              boolean strict) {
        List<FactoryDevices.Listing> out = new ArrayList<>();
        for (EpFactory f : factories) {
            out.add(FactoryDevices.list(name, f, hardware, config, strict));
        }
        return out;
    }

    /**
     * Adds a library, first hiding the one it replaces; the names are checked again under the lock.
     *
     * @return the replaced library, or {@code null}
     */
    private EpLibrary add(EpLibrary lib, EpLibrary replaced, boolean anyState) {
        EpLibrary hidden = null;
        lock.lock();
        try {
            if (replaced != null && replaced.state() == EpLibrary.State.ACTIVE) {
                leases.close(replaced, false);
                hideLocked(replaced);
                hidden = replaced;
            }
            checkFree(lib.name(), lib.factories(), null, anyState);
            leases.open(lib);
            libraries.add(lib);
            lib.epNames().forEach(ep -> providers.put(ep, lib));
            publish();
        } finally {
            lock.unlock();
        }
        if (hidden != null) {
            listeners.removed(hidden.name(), hidden.devices());
        }
        listeners.added(lib.name(), lib.devices());
        LOG.info("EP library '{}' arrived: {}", lib.name(), EpLibrary.describe(lib.factories(), lib.devices(),
                lib.withoutDevice()));
        return hidden;
    }

    /**
     * Checks that a name and the factories' EP names are free; a refusal is logged.
     *
     * @param name the registration name
     * @param factories the factories
     * @param replacing an active library that is about to be replaced, whose names do not count; or {@code null}
     * @param anyState whether draining libraries count too
     */
    private void checkFree(String name, List<EpFactory> factories, EpLibrary replacing, boolean anyState) {
        try {
            checkNames(name, factories, replacing, anyState);
        } catch (InvalidArgumentException e) {
            LOG.info("EP library '{}' refused: {}", name, e.getMessage());
            throw e;
        }
    }

    private void checkNames(String name, List<EpFactory> factories, EpLibrary replacing, boolean anyState) {
        // names reach log lines, shell tables and metrics labels: one line each, nothing that drives a terminal
        checkPrintable("an EP library name", name);
        for (EpFactory f : factories) {
            checkPrintable("EP library " + Names.quote(name) + " has a factory whose name", f.name());
        }
        for (EpLibrary lib : libraries) {
            boolean counts = lib != replacing && (anyState || lib.state() == EpLibrary.State.ACTIVE);
            if (counts && lib.name().equals(name)) {
                throw new InvalidArgumentException("an EP library is already registered under the name '" + name
                        + "'" + (lib.state() == EpLibrary.State.DRAINING ? " (it is being removed)" : ""));
            }
        }
        for (EpFactory f : factories) {
            for (EpLibrary lib : libraries) {
                boolean counts = lib != replacing && (anyState || lib.state() == EpLibrary.State.ACTIVE);
                if (counts && lib.epNames().contains(f.name())) {
                    throw new InvalidArgumentException("EP library '" + name + "' has a factory named '" + f.name()
                            + "', which library '" + lib.name() + "' already provides");
                }
            }
        }
    }

    private static void checkPrintable(String what, String name) {
        if (name == null || name.codePoints().anyMatch(Character::isISOControl)) {
            throw new InvalidArgumentException(what + " " + Names.quote(name) + " contains a control character");
        }
    }

    /**
     * Adds factories to an active library, as when an OSGi bundle registers one more {@code EpFactory} service.
     *
     * @param name the registration name
     * @param more the factories to add
     * @throws InvalidArgumentException when no active library has the name or an EP name is taken
     */
    void extend(String name, List<EpFactory> more) {
        EpLibrary lib;
        lock.lock();
        try {
            lib = active(name);
            if (lib == null) {
                throw new InvalidArgumentException("no active EP library is registered under the name '" + name
                        + "'");
            }
            checkNames("", more, null, false);
        } catch (InvalidArgumentException e) {
            LOG.info("more factories of EP library '{}' refused: {}", name, e.getMessage());
            throw e;
        } finally {
            lock.unlock();
        }
        List<FactoryDevices.Listing> listings = list(name, more, configWith(lib.isVirtual()), false);
        List<EpDevice> added = new ArrayList<>();
        lock.lock();
        try {
            if (lib.state() != EpLibrary.State.ACTIVE) {
                throw new InvalidArgumentException("EP library '" + name + "' is being removed");
            }
            checkNames("", more, null, false);
            lib.add(listings);
            listings.forEach(l -> added.addAll(l.devices()));
            more.forEach(f -> providers.put(f.name(), lib));
            publish();
        } finally {
            lock.unlock();
        }
        listeners.added(name, added);
        LOG.info("EP library '{}' gained factories: {}", name, EpLibrary.describe(more, added, Map.of()));
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
        EpLibrary lib;
        lock.lock();
        try {
            lib = active(name);
            if (lib == null || lib.isVirtual() == virtual) {
                return false;
            }
        } finally {
            lock.unlock();
        }
        List<FactoryDevices.Listing> listings = list(name, lib.factories(), configWith(virtual), false);
        List<EpDevice> before;
        List<EpDevice> after;
        lock.lock();
        try {
            if (lib.state() != EpLibrary.State.ACTIVE) {
                return false;
            }
            before = lib.devices();
            lib.relist(listings, virtual);
            after = lib.devices();
            publish();
        } finally {
            lock.unlock();
        }
        if (!before.equals(after)) {
            listeners.removed(name, before);
            listeners.added(name, after);
        }
        LOG.info("EP library '{}' {} virtual devices: {}", name, virtual ? "granted" : "denied",
                EpLibrary.describe(lib.factories(), after, lib.withoutDevice()));
        return true;
    }

    /**
     * Gets the active library of a name.
     *
     * @param name the registration name
     * @return the library, or {@code null}
     */
    EpLibrary active(String name) {
        lock.lock();
        try {
            for (EpLibrary lib : libraries) {
                if (lib.name().equals(name) && lib.state() == EpLibrary.State.ACTIVE) {
                    return lib;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Tells whether a draining library has a name.
     *
     * @param name the registration name
     * @return true when one is being removed under that name
     */
    boolean isDraining(String name) {
        lock.lock();
        try {
            return libraries.stream().anyMatch(l -> l.name().equals(name)
                    && l.state() == EpLibrary.State.DRAINING);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Finds the active library of each EP.
     *
     * @param epNames the EP names
     * @return each EP's library, by EP name
     * @throws EpUnavailableException when an EP has no active library (it was withdrawn meanwhile)
     */
    Map<String, EpLibrary> providers(Collection<String> epNames) {
        lock.lock();
        try {
            Map<String, EpLibrary> out = new LinkedHashMap<>();
            for (String ep : epNames) {
                EpLibrary lib = providers.get(ep);
                if (lib == null) {
                    throw new EpUnavailableException("EP " + ep + " became unavailable while the session was being "
                            + "created: its library is being removed");
                }
                out.put(ep, lib);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Begins removing an active library, in one step as selection sees it: the library takes no new lease and its
     * devices are hidden; then the listeners are told. A session that resolved the library before takes no lease on
     * it and selects again.
     *
     * @param lib the library
     * @param onlyIfFree whether to begin only when no session holds it
     * @return the sessions holding it (when {@code onlyIfFree} and not empty, nothing was changed); {@code null} when
     *         it was not active
     */
    List<SessionLease> beginRemoval(EpLibrary lib, boolean onlyIfFree) {
        List<SessionLease> held;
        lock.lock();
        try {
            if (lib.state() != EpLibrary.State.ACTIVE) {
                return null;
            }
            held = leases.close(lib, onlyIfFree);
            if (onlyIfFree && !held.isEmpty()) {
                return held;
            }
            hideLocked(lib);
        } finally {
            lock.unlock();
        }
        listeners.removed(lib.name(), lib.devices());
        return held;
    }

    private void hideLocked(EpLibrary lib) {
        lib.state(EpLibrary.State.DRAINING);
        lib.epNames().forEach(ep -> providers.remove(ep, lib));
        publish();
    }

    /**
     * Makes a draining library active again, when its removal is given up; the listeners are told.
     *
     * @param lib the library
     * @return false when it cannot be (it is not draining, or another active library took its name or an EP name)
     */
    boolean restore(EpLibrary lib) {
        lock.lock();
        try {
            if (lib.state() != EpLibrary.State.DRAINING) {
                return false;
            }
            try {
                checkNames(lib.name(), lib.factories(), lib, false);
            } catch (InvalidArgumentException taken) {
                return false;
            }
            lib.state(EpLibrary.State.ACTIVE);
            lib.epNames().forEach(ep -> providers.put(ep, lib));
            publish();
        } finally {
            lock.unlock();
        }
        listeners.added(lib.name(), lib.devices());
        return true;
    }

    /**
     * Forgets a library and releases it: its lease entry goes, its class loader is closed. Nothing of it may run
     * afterwards; the caller has made sure no session holds it, or failed those that do.
     *
     * @param lib the library
     */
    void forget(EpLibrary lib) {
        boolean wasActive;
        lock.lock();
        try {
            if (!libraries.remove(lib)) {
                return;
            }
            wasActive = lib.state() == EpLibrary.State.ACTIVE;
            lib.epNames().forEach(ep -> providers.remove(ep, lib));
            leases.forget(lib);
            lib.release(LOG);
            publish();
        } finally {
            lock.unlock();
        }
        if (wasActive) {
            listeners.removed(lib.name(), lib.devices());
        }
    }

    /** Recomputes the selectable devices: those of active libraries, in registration order. */
    private void publish() {
        List<EpDevice> all = new ArrayList<>();
        for (EpLibrary lib : libraries) {
            if (lib.state() == EpLibrary.State.ACTIVE) {
                all.addAll(lib.devices());
            }
        }
        activeDevices = List.copyOf(all);
    }

    /**
     * Gets the PCI vendor id an EP's factory reported when its library was registered, without calling the factory.
     *
     * @param epName the EP name
     * @return the vendor id, 0 when no active library provides the EP
     */
    int vendorId(String epName) {
        lock.lock();
        try {
            EpLibrary lib = providers.get(epName);
            return lib == null ? 0 : lib.vendorId(epName);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a snapshot of the libraries, active and draining, in registration order.
     *
     * @return the libraries
     */
    List<EpLibrary> snapshot() {
        lock.lock();
        try {
            return List.copyOf(libraries);
        } finally {
            lock.unlock();
        }
    }

    /** Releases every library, at environment close, after its sessions were closed. */
    void releaseAll() {
        lock.lock();
        try {
            for (EpLibrary lib : libraries) {
                lib.release(LOG);
            }
            libraries.clear();
            providers.clear();
            leases.clear();
            publish();
        } finally {
            lock.unlock();
        }
    }
}
