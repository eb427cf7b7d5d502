package io.ortex.runtime.osgi;

import io.ortex.api.spi.EpFactory;
import io.ortex.runtime.internal.RuntimeEnvironment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.osgi.framework.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EP libraries of the framework's EP bundles: the factories of one bundle form one library, registered under the
 * bundle's symbolic name. Of several versions of one bundle installed side by side, the newest (highest version,
 * then latest installed) serves: when a newer one arrives, it takes the library's place for new sessions at once
 * and the older one drains on a thread of its own ({@link RuntimeEnvironment#replaceLibrary}); an older one arriving
 * later stands by. When the serving bundle goes, its library is withdrawn (blocking until drained, as the
 * configured drain limit and outcome say) and the newest bundle standing by serves in its place.
 *
 * <p>The {@link EpFactoryTracker} reports the factory services; this class decides. It uses no OSGi type but
 * {@link Version}, so that it can be tested without a framework. Thread safe: the bookkeeping is guarded by this
 * object's monitor, which is never held while a library drains.
 */
final class BundleLibraries {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.registry");

    /** What a bundle's library is doing. */
    enum Role {
        /** Not registered: an older version beside the serving one, or drained. */
        STANDBY,
        /** Registered and selectable. */
        SERVING,
        /** Replaced by a newer version, and waiting for its sessions. */
        DRAINING,
        /** Being withdrawn, its bundle (or one of its factories) going. */
        WITHDRAWING
    }

    /** One bundle's factories. */
    private static final class Entry {
        final long bundleId;
        final String name;
        final Version version;
        final Map<Long, EpFactory> factories = new LinkedHashMap<>();
        Role role = Role.STANDBY;
        CompletableFuture<Void> drained;

        Entry(long bundleId, String name, Version version) {
            this.bundleId = bundleId;
            this.name = name;
            this.version = version;
        }

        @Override
        public String toString() {
            return name + " " + version + " (bundle " + bundleId + ")";
        }
    }

    /** Newest first: the higher version, then the bundle installed later. */
    private static final Comparator<Entry> NEWEST_FIRST = Comparator.comparing((Entry e) -> e.version)
            .thenComparingLong(e -> e.bundleId).reversed();

    private final RuntimeEnvironment environment;
    private final Supplier<RuntimeSettings> settings;
    private final Map<Long, Entry> bundles = new LinkedHashMap<>();

    /**
     * Creates the bookkeeping.
     *
     * @param environment the environment the libraries go to
     * @param settings the current configuration (drain limit and outcome, virtual-device grants)
     */
    BundleLibraries(RuntimeEnvironment environment, Supplier<RuntimeSettings> settings) {
        this.environment = environment;
        this.settings = settings;
    }

    /**
     * A bundle registered an {@code EpFactory} service.
     *
     * @param bundleId the bundle's id
     * @param name its symbolic name, the library's registration name
     * @param version its version
     * @param serviceId the service's id
     * @param factory the service object
     * @return false when the factory cannot be used (logged); the caller gives the service back
     */
    synchronized boolean factoryAdded(long bundleId, String name, Version version, long serviceId, EpFactory factory) {
        Entry entry = bundles.computeIfAbsent(bundleId, id -> new Entry(id, name, version));
        entry.factories.put(serviceId, factory);
        Entry serving = serving(name);
        try {
            if (serving == entry) {
                environment.addFactories(name, List.of(factory));
            } else if (serving == null) {
                register(entry);
            } else if (NEWEST_FIRST.compare(entry, serving) < 0) {
                replace(serving, entry);
            } else {
                LOG.info("EP bundle {} stands by: the newer {} serves", entry, serving);
            }
            return true;
        } catch (RuntimeException e) {
            LOG.error("EP factory service {} of bundle {} is not used: {}", serviceId, entry, e.getMessage(), e);
            entry.factories.remove(serviceId);
            if (entry.factories.isEmpty() && entry.role == Role.STANDBY) {
                bundles.remove(bundleId);
            }
            return false;
        }
    }

    private void register(Entry entry) {
        environment.registerFactories(entry.name, new ArrayList<>(entry.factories.values()),
                settings.get().grantsVirtualDevices(entry.name));
        entry.role = Role.SERVING;
    }

    private void replace(Entry old, Entry newer) {
        RuntimeSettings s = settings.get();
        CompletableFuture<Void> drained = environment.replaceLibrary(newer.name,
                new ArrayList<>(newer.factories.values()), s.grantsVirtualDevices(newer.name), s.drainLimit(),
                s.failAtLimit());
        newer.role = Role.SERVING;
        old.role = Role.DRAINING;
        LOG.info("EP bundle {} serves new sessions; {} drains until its sessions close", newer, old);
        // whoever waits for the drain waits for its bookkeeping too (drainedOut may run on the draining thread)
        CompletableFuture<Void> out = drained.whenComplete((ok, failure) -> drainedOut(old));
        if (old.role == Role.DRAINING) {
            old.drained = out;
        }
    }

    private synchronized void drainedOut(Entry old) {
        if (old.role == Role.DRAINING) {
            old.role = Role.STANDBY;
            old.drained = null;
        }
        if (old.factories.isEmpty()) {
            bundles.remove(old.bundleId);
        }
    }

    /**
     * A bundle's {@code EpFactory} service went away (the bundle stops, is updated or uninstalled, or unregisters
     * it). When its library serves, the library is withdrawn on this thread, which blocks until it is released; when
     * it drains after a newer version took its place, this thread waits for the drain. Only then may the caller give
     * the service back. Afterwards the bundle's other factories serve again if it stays active, or else the newest
     * version standing by.
     *
     * @param bundleId the bundle's id
     * @param serviceId the service's id
     * @param bundleActive tells whether the bundle is still active, asked once the library is released
     */
    void factoryRemoved(long bundleId, long serviceId, BooleanSupplier bundleActive) {
        Entry entry;
        Runnable withdrawal = null;
        CompletableFuture<Void> drain;
        synchronized (this) {
            entry = bundles.get(bundleId);
            if (entry == null || entry.factories.remove(serviceId) == null) {
                return;
            }
            drain = entry.role == Role.DRAINING ? entry.drained : null;
            if (entry.role == Role.SERVING) {
                // begun under the monitor: from now on a bundle arriving may take the name
                RuntimeSettings s = settings.get();
                entry.role = Role.WITHDRAWING;
                withdrawal = environment.beginWithdrawal(entry.name, s.drainLimit(), s.failAtLimit());
            }
        }
        if (withdrawal != null) {
            try {
                withdrawal.run();
            } finally {
                afterWithdrawal(entry, bundleActive);
            }
        } else if (drain != null) {
            drain.exceptionally(e -> null).join();
        }
        synchronized (this) {
            if (entry.factories.isEmpty() && entry.role == Role.STANDBY) {
                bundles.remove(bundleId);
            }
        }
    }

    private synchronized void afterWithdrawal(Entry entry, BooleanSupplier bundleActive) {
        entry.role = Role.STANDBY;
        if (serving(entry.name) != null) {
            return;
        }
        List<Entry> candidates = new ArrayList<>();
        if (!entry.factories.isEmpty() && bundleActive.getAsBoolean()) {
            candidates.add(entry);
        }
        bundles.values().stream().filter(e -> e != entry && e.name.equals(entry.name) && e.role == Role.STANDBY
                && !e.factories.isEmpty()).sorted(NEWEST_FIRST).forEach(candidates::add);
        for (Entry next : candidates) {
            try {
                register(next);
                if (next != entry) {
                    LOG.info("EP bundle {} serves again in place of {}", next, entry);
                }
                return;
            } catch (RuntimeException e) {
                LOG.error("the EP factories of bundle {} are not used: {}", next, e.getMessage(), e);
            }
        }
    }

    private Entry serving(String name) {
        for (Entry e : bundles.values()) {
            if (e.name.equals(name) && e.role == Role.SERVING) {
                return e;
            }
        }
        return null;
    }

    /**
     * Applies the virtual-device grants of new settings to the serving libraries: each library whose grant changed
     * is asked for its devices again.
     *
     * @param next the new settings
     */
    synchronized void regrant(RuntimeSettings next) {
        for (Entry e : bundles.values()) {
            if (e.role == Role.SERVING) {
                try {
                    environment.regrantVirtualDevices(e.name, next.grantsVirtualDevices(e.name));
                } catch (RuntimeException ex) {
                    LOG.error("EP library {} failed to list its devices again: {}", e.name, ex.getMessage(), ex);
                }
            }
        }
    }

    /**
     * Tells whether a library is an EP bundle's.
     *
     * @param library the registration name
     * @return true when a tracked bundle has that symbolic name
     */
    synchronized boolean isBundleLibrary(String library) {
        return bundles.values().stream().anyMatch(e -> e.name.equals(library));
    }

    /**
     * Gets the role of a bundle's library, for tests.
     *
     * @param bundleId the bundle's id
     * @return its role, or {@code null} when no factory of it is tracked
     */
    synchronized Role role(long bundleId) {
        Entry e = bundles.get(bundleId);
        return e == null ? null : e.role;
    }
}
