package io.ortex.runtime.internal;

import io.ortex.api.EpInUseException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The removal of an EP library, one protocol for every way a library goes (unregistration, an EP bundle stopping,
 * an older version of a bundle replaced by a newer one): {@linkplain #begin begin} (the library takes no new lease
 * and its devices are hidden; the sessions that asked for it are moved off), wait for the sessions holding it, then
 * {@linkplain #finish finish} (it is released) or, for an unregistration that timed out, {@linkplain #abort abort}
 * (it is selectable again). What happens at the wait's limit is the caller's choice ({@link AtLimit}). Thread safe;
 * the waits hold no lock.
 */
final class LibraryRemoval {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.drain");
    /** How long a removal that was interrupted still waits before it fails the sessions holding the library. */
    static final Duration INTERRUPTED_GRACE = Duration.ofMillis(100);

    /** What a removal does when its limit passes with sessions still holding the library. */
    enum AtLimit {
        /** Give up: the library is selectable again and the removal fails ({@code unregisterLibrary(name, t)}). */
        RESTORE,
        /** Fail those sessions (their next run throws), then release the library. */
        FAIL_HOLDERS,
        /** Log those sessions and wait as long again, until they close. */
        KEEP_WAITING
    }

    /** What the rest of the environment does for a removal. */
    interface Holders {
        /**
         * Told when the removal of a held library begins, before the wait: moves the sessions that asked for it
         * onto the remaining EPs. Called with no lock held; the removal waits for it to return.
         *
         * @param library the library's registration name
         * @param eps the names of its EPs
         * @param holders the sessions holding it
         */
        void removalBegun(String library, List<String> eps, List<SessionLease> holders);

        /**
         * Fails a session still holding a library at the limit: its runs in flight complete, its next run throws.
         *
         * @param holder the session's lease
         * @param reason the message its runs will throw
         */
        void fail(SessionLease holder, String reason);

        /**
         * Told when no session holds the library any more, just before its factories are released: gives back what
         * the environment keeps of them (their shared allocators). The default does nothing.
         *
         * @param lib the library
         */
        default void releasing(EpLibrary lib) {
        }
    }

    private final EpRegistry registry;
    private final LeaseTable leases;
    private final Holders holders;

    /**
     * Creates the removal protocol of an environment.
     *
     * @param registry the libraries
     * @param leases the leases on them
     * @param holders what the environment does for the sessions holding a library being removed
     */
    LibraryRemoval(EpRegistry registry, LeaseTable leases, Holders holders) {
        this.registry = registry;
        this.leases = leases;
        this.holders = holders;
    }

    /**
     * Unregisters a library (the API's {@code unregisterLibrary}). Without a timeout it fails at once when a
     * session holds the library, and the library stays as it was; with one, its devices are hidden at once, the
     * migrating sessions are moved off, and at the timeout the library is restored and the call fails.
     *
     * @param name the registration name
     * @param timeout how long to wait for the sessions holding it; {@code null} or zero to fail at once
     * @throws InvalidArgumentException when no active library has the name
     * @throws EpInUseException listing the sessions that hold the library
     */
    void unregister(String name, Duration timeout) {
        EpLibrary lib = registry.active(name);
        if (lib == null) {
            if (registry.isDraining(name)) {
                throw new OrtexException(ErrorCode.FAIL, "EP library '" + name + "' is already being removed");
            }
            throw new InvalidArgumentException("no EP library is registered under the name '" + name + "'");
        }
        boolean wait = timeout != null && !timeout.isZero() && !timeout.isNegative();
        List<SessionLease> held = registry.beginRemoval(lib, !wait);
        if (held == null) {
            // another removal of it began meanwhile and owns it now
            throw new OrtexException(ErrorCode.FAIL, "EP library '" + name + "' is already being removed");
        }
        if (!wait && !held.isEmpty()) {
            throw new EpInUseException(name, describe(held), false);
        }
        drain(lib, held, wait ? timeout : Duration.ZERO, AtLimit.RESTORE);
    }

    /**
     * Begins removing a library for good, as when its EP bundle stops: at once it takes no new lease and its devices
     * are hidden; the rest (moving the migrating sessions off, waiting for the others, releasing it) is returned for
     * the caller to run, blocking. Nothing happens when no active library has the name.
     *
     * @param name the registration name
     * @param limit how long to wait before the outcome applies
     * @param atLimit {@link AtLimit#FAIL_HOLDERS} or {@link AtLimit#KEEP_WAITING}
     * @return the rest of the removal, which returns once the library is released
     */
    Runnable withdraw(String name, Duration limit, AtLimit atLimit) {
        EpLibrary lib = registry.active(name);
        List<SessionLease> held = lib == null ? null : begin(lib);
        if (held == null) {
            return () -> { };
        }
        return () -> drain(lib, held, limit, atLimit);
    }

    /**
     * Begins a removal: the library takes no new lease and its devices are hidden.
     *
     * @param lib the library
     * @return the sessions holding it, or {@code null} when it was not active
     */
    List<SessionLease> begin(EpLibrary lib) {
        return registry.beginRemoval(lib, false);
    }

    /**
     * Waits for the sessions holding a library whose removal began, then finishes the removal, or applies the
     * outcome each time the limit passes. The migrating sessions are moved off first. An interrupt turns the wait
     * into failing the holders after {@link #INTERRUPTED_GRACE} (into restoring, for {@link AtLimit#RESTORE}); the
     * thread's interrupt status is set again on return.
     *
     * @param lib the library, hidden
     * @param held the sessions that held it when its removal began
     * @param limit how long to wait before the outcome applies
     * @param atLimit the outcome
     * @throws EpInUseException for {@link AtLimit#RESTORE}, when sessions still hold it at the limit
     */
    void drain(EpLibrary lib, List<SessionLease> held, Duration limit, AtLimit atLimit) {
        if (held.isEmpty()) {
            LOG.info("EP library '{}' ({}) is being removed: no session holds it", lib.name(),
                    String.join(", ", lib.epNames()));
        } else {
            LOG.info("EP library '{}' ({}) is being removed: draining {} session(s) {}, limit {} s then {}",
                    lib.name(), String.join(", ", lib.epNames()), held.size(), held, limit.toSeconds(),
                    atLimit.name().toLowerCase(Locale.ROOT).replace('_', ' '));
            holders.removalBegun(lib.name(), lib.epNames(), held);
        }
        AtLimit outcome = atLimit;
        int failed = 0;
        boolean interrupted = false;
        Duration wait = limit;
        long started = System.nanoTime();
        try {
            while (true) {
                List<SessionLease> left;
                try {
                    left = leases.await(lib, wait);
                } catch (InterruptedException e) {
                    // whoever interrupts a removal wants it over
                    interrupted = true;
                    wait = outcome == AtLimit.RESTORE ? Duration.ZERO : INTERRUPTED_GRACE;
                    outcome = outcome == AtLimit.RESTORE ? AtLimit.RESTORE : AtLimit.FAIL_HOLDERS;
                    continue;
                }
                if (left.isEmpty()) {
                    finish(lib);
                    long ms = Duration.ofNanos(System.nanoTime() - started).toMillis();
                    if (failed == 0) {
                        LOG.info("EP library '{}' removed after {} ms: drained", lib.name(), ms);
                    } else {
                        LOG.info("EP library '{}' removed after {} ms: drained once {} session(s) were failed at the "
                                + "limit", lib.name(), ms, failed);
                    }
                    return;
                }
                long waited = Duration.ofNanos(System.nanoTime() - started).toSeconds();
                switch (outcome) {
                    case RESTORE -> {
                        if (abort(lib)) {
                            LOG.info("EP library '{}' stays registered: still held after {} s by {}", lib.name(),
                                    waited, left);
                            if (interrupted) {
                                throw new OrtexException(ErrorCode.FAIL, "interrupted while waiting to remove EP "
                                        + "library '" + lib.name() + "'; it stays registered");
                            }
                            throw new EpInUseException(lib.name(), describe(left), true);
                        }
                        // another library took its place meanwhile: it cannot come back, so it goes
                        LOG.warn("EP library '{}' cannot be restored: another library took its name or an EP name",
                                lib.name());
                        failed += failAll(lib, left, waited);
                        outcome = AtLimit.FAIL_HOLDERS;
                    }
                    // a failed session has released its EPs when fail returns; the wait goes on for the others
                    case FAIL_HOLDERS -> failed += failAll(lib, left, waited);
                    case KEEP_WAITING -> LOG.warn("EP library '{}' ({}) is still held after {} s by {}; waiting for "
                            + "them to close", lib.name(), String.join(", ", lib.epNames()), waited, left);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private int failAll(EpLibrary lib, List<SessionLease> left, long waited) {
        for (SessionLease lease : left) {
            LOG.warn("failing session {}: it still holds EP library '{}' after {} s", lease, lib.name(), waited);
            holders.fail(lease, "EP " + String.join(", ", lib.epNames()) + " is unavailable: its library '"
                    + lib.name() + "' was removed while session " + lease.sessionId() + " held it");
        }
        return left.size();
    }

    /**
     * Finishes a removal: the library is released and forgotten; no code of it runs again.
     *
     * @param lib the library
     */
    void finish(EpLibrary lib) {
        holders.releasing(lib);
        registry.forget(lib);
    }

    /**
     * Gives a removal up: the library takes leases again and its devices are selectable again.
     *
     * @param lib the library
     * @return false when it cannot come back (another library took its name or an EP name meanwhile)
     */
    boolean abort(EpLibrary lib) {
        leases.reopen(lib);
        if (registry.restore(lib)) {
            return true;
        }
        leases.close(lib, false);
        return false;
    }

    private static List<String> describe(List<SessionLease> sessions) {
        return sessions.stream().map(SessionLease::toString).toList();
    }
}
