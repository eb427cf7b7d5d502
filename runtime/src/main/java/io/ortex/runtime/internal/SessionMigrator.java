package io.ortex.runtime.internal;

import io.ortex.api.SessionOptions;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the sessions that asked for it ({@link SessionOptions#MIGRATE_ON_EP_REMOVAL}) off an EP library whose
 * removal has begun: each such holder selects again with its options minus the departing EPs, takes leases on the EPs
 * chosen, is compiled again ({@link InferenceSession#migrate}) and gives up its lease on the departing library, which
 * can then be released at once. A session that cannot be moved (no EP left, a compile error) keeps its EPs and the
 * removal treats it as it treats any holder. Thread safe; migrations of one session are serialized.
 */
final class SessionMigrator {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.migration");

    /**
     * The EPs chosen for a session, with their leases taken.
     *
     * @param config the session configuration with the EP options added
     * @param bindings the EPs in priority order
     * @param epNames their names, in the same order
     * @param libraries the libraries leased for them
     */
    record Bound(Map<String, String> config, List<EpBinding> bindings, List<String> epNames,
                 List<EpLibrary> libraries) {
    }

    /** Selects a session's EPs and takes leases on their libraries, as session creation does. */
    @FunctionalInterface
    interface Binder {
        /**
         * Selects and leases.
         *
         * @param lease the session's lease
         * @param options the options to select with
         * @param metadata the model's metadata, for a delegate
         * @return the EPs chosen, already leased
         * @throws RuntimeException when nothing can be selected or leased
         */
        Bound bind(SessionLease lease, SessionOptions options, Map<String, String> metadata);
    }

    /** A session that migrates, with what it selects with; the options lose each EP it was moved off. */
    private static final class Entry {
        final InferenceSession session;
        final SessionLease lease;
        final Map<String, String> metadata;
        SessionOptions options;

        Entry(InferenceSession session, SessionLease lease, SessionOptions options, Map<String, String> metadata) {
            this.session = session;
            this.lease = lease;
            this.options = options;
            this.metadata = metadata;
        }
    }

    private final LeaseTable leases;
    private final Binder binder;
    private final Map<String, Entry> sessions = new ConcurrentHashMap<>();

    /**
     * Creates the migrator of an environment.
     *
     * @param leases the environment's leases
     * @param binder selects and leases EPs as session creation does
     */
    SessionMigrator(LeaseTable leases, Binder binder) {
        this.leases = leases;
        this.binder = binder;
    }

    /**
     * Tells whether session options ask for migration.
     *
     * @param options the session options
     * @return whether {@link SessionOptions#MIGRATE_ON_EP_REMOVAL} is {@code "1"}
     */
    static boolean wanted(SessionOptions options) {
        return "1".equals(options.configValue(SessionOptions.MIGRATE_ON_EP_REMOVAL,
                SessionOptions.MIGRATE_ON_EP_REMOVAL_DEFAULT).trim());
    }

    /**
     * Starts following a session that asked for migration; the options are copied.
     *
     * @param session the session
     * @param lease its lease
     * @param options the options it was created with
     * @param metadata its model's metadata
     */
    void track(InferenceSession session, SessionLease lease, SessionOptions options, Map<String, String> metadata) {
        sessions.put(session.id(), new Entry(session, lease, without(options, Set.of()), metadata));
    }

    /**
     * Stops following a session, when it closes.
     *
     * @param sessionId the session's id
     */
    void forget(String sessionId) {
        sessions.remove(sessionId);
    }

    /**
     * Moves the migrating holders of a library being removed onto the remaining EPs; other holders are left alone.
     * Returns once each has been moved (its runs in flight on the departing EPs finished) or given up on.
     *
     * @param library the library's registration name
     * @param departing the names of the library's EPs
     * @param holders the leases on the library
     */
    void removalBegun(String library, List<String> departing, List<SessionLease> holders) {
        for (SessionLease lease : holders) {
            Entry e = sessions.get(lease.sessionId());
            if (e != null) {
                synchronized (e) {
                    moveOff(e, library, departing);
                }
            }
        }
    }

    private void moveOff(Entry e, String library, List<String> departing) {
        InferenceSession s = e.session;
        List<String> before = s.executionProviders();
        if (before.stream().noneMatch(departing::contains)) {
            return;
        }
        SessionOptions reduced = without(e.options, departing);
        if (!e.options.appendedExecutionProviders().isEmpty() && reduced.appendedExecutionProviders().isEmpty()
                && "1".equals(reduced.configValue(SessionOptions.DISABLE_CPU_EP_FALLBACK, "0"))) {
            LOG.warn("session {} cannot move off EP library '{}': no EP it appended is left and the CPU fallback is "
                    + "disabled", e.lease, library);
            return;
        }
        Set<EpLibrary> held = leases.heldBy(e.lease);
        Bound bound;
        try {
            bound = binder.bind(e.lease, reduced, e.metadata);
        } catch (RuntimeException ex) {
            LOG.warn("session {} cannot move off EP library '{}': {}", e.lease, library, ex.getMessage(), ex);
            return;
        }
        boolean moved;
        try {
            moved = s.migrate(bound.config(), bound.bindings());
        } catch (RuntimeException ex) {
            leases.retain(e.lease, held);
            LOG.warn("session {} cannot move off EP library '{}' onto {}: {}", e.lease, library, bound.epNames(),
                    ex.getMessage(), ex);
            return;
        }
        if (!moved) {
            // it is closing: once it has released its EPs, drop the leases just taken for nothing
            s.awaitReleased();
            leases.release(e.lease);
            return;
        }
        e.options = reduced;
        leases.retain(e.lease, bound.libraries());
        LOG.info("session {} moved from {} to {} as EP library '{}' is being removed", e.lease, before,
                bound.epNames(), library);
    }

    /** Copies session options, leaving out the explicitly appended EPs named. */
    static SessionOptions without(SessionOptions options, Collection<String> epNames) {
        SessionOptions copy = new SessionOptions();
        options.config().forEach(copy::config);
        copy.intraOpThreads(options.intraOpThreads());
        for (SessionOptions.EpAppend a : options.appendedExecutionProviders()) {
            if (!epNames.contains(a.devices().get(0).epName())) {
                copy.appendExecutionProvider(a.devices(), a.options());
            }
        }
        if (options.selectionDelegate() != null) {
            copy.selectionDelegate(options.selectionDelegate());
        } else if (options.selectionPolicy() != null) {
            copy.selectionPolicy(options.selectionPolicy());
        }
        return copy;
    }
}
