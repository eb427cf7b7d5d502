package io.ortex.runtime.internal;

import io.ortex.api.EpUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which sessions hold which EP libraries (leases), and whether a library takes new leases. A library is open from
 * its registration until its removal begins ({@link #close}); then it takes no new lease, and its removal waits
 * ({@link #await}) for the sessions holding it to give theirs back ({@link #release}, {@link #retain}). Leases are
 * keyed on the library object, so a library registered again under the same name is another entry. Thread safe: one
 * lock guards the table; nothing outside is called while it is held.
 */
final class LeaseTable {
    /** One library's entry. */
    private static final class Entry {
        final Set<SessionLease> holders = new LinkedHashSet<>();
        boolean open = true;
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final Map<EpLibrary, Entry> entries = new HashMap<>();

    /**
     * Opens a library for leases, before its devices can be selected.
     *
     * @param library the library
     */
    void open(EpLibrary library) {
        lock.lock();
        try {
            entries.computeIfAbsent(library, k -> new Entry());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a lease for a session on each of the given libraries, all or none.
     *
     * @param session the session
     * @param libraries the libraries of the EPs it will use
     * @throws EpUnavailableException naming the library when one of them takes no new lease (its removal began)
     */
    void acquire(SessionLease session, Collection<EpLibrary> libraries) {
        lock.lock();
        try {
            for (EpLibrary lib : libraries) {
                Entry e = entries.get(lib);
                if (e == null || !e.open) {
                    throw new EpUnavailableException("EP library '" + lib.name() + "' became unavailable while "
                            + "the session was being created: it is being removed");
                }
            }
            libraries.forEach(lib -> entries.get(lib).holders.add(session));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes a library to new leases, as its removal begins.
     *
     * @param library the library
     * @param onlyIfFree whether to close it only when no session holds it
     * @return the sessions holding it; when {@code onlyIfFree} and this is not empty, the library stays open
     */
    List<SessionLease> close(EpLibrary library, boolean onlyIfFree) {
        lock.lock();
        try {
            Entry e = entries.get(library);
            if (e == null) {
                return List.of();
            }
            if (!onlyIfFree || e.holders.isEmpty()) {
                e.open = false;
            }
            return List.copyOf(e.holders);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Opens a closed library again, when its removal is given up.
     *
     * @param library the library
     */
    void reopen(EpLibrary library) {
        lock.lock();
        try {
            Entry e = entries.get(library);
            if (e != null) {
                e.open = true;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until no session holds a library.
     *
     * @param library the library
     * @param timeout how long to wait at most
     * @return the sessions still holding it at the end, empty when it is free (or unknown)
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    List<SessionLease> await(EpLibrary library, Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                Entry e = entries.get(library);
                if (e == null || e.holders.isEmpty()) {
                    return List.of();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return List.copyOf(e.holders);
                }
                released.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gets the sessions holding a library now.
     *
     * @param library the library
     * @return the leases, in the order they were taken
     */
    List<SessionLease> holders(EpLibrary library) {
        lock.lock();
        try {
            Entry e = entries.get(library);
            return e == null ? List.of() : List.copyOf(e.holders);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gets the libraries a session holds.
     *
     * @param session the session
     * @return the libraries
     */
    Set<EpLibrary> heldBy(SessionLease session) {
        lock.lock();
        try {
            Set<EpLibrary> out = new LinkedHashSet<>();
            entries.forEach((lib, e) -> {
                if (e.holders.contains(session)) {
                    out.add(lib);
                }
            });
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gets the libraries a session holds that take no new lease (their removal began).
     *
     * @param session the session
     * @return the libraries
     */
    List<EpLibrary> closedHeldBy(SessionLease session) {
        lock.lock();
        try {
            List<EpLibrary> out = new ArrayList<>();
            entries.forEach((lib, e) -> {
                if (!e.open && e.holders.contains(session)) {
                    out.add(lib);
                }
            });
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives back all of a session's leases; a removal waiting for them proceeds once a library is free.
     *
     * @param session the session
     */
    void release(SessionLease session) {
        retain(session, List.of());
    }

    /**
     * Keeps a session's leases only on the given libraries, as after the session moved onto other EPs.
     *
     * @param session the session
     * @param keep the libraries it still uses
     */
    void retain(SessionLease session, Collection<EpLibrary> keep) {
        lock.lock();
        try {
            entries.forEach((lib, e) -> {
                if (!keep.contains(lib)) {
                    e.holders.remove(session);
                }
            });
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Forgets a library, once it is released.
     *
     * @param library the library
     */
    void forget(EpLibrary library) {
        lock.lock();
        try {
            entries.remove(library);
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Forgets every library, at environment close. */
    void clear() {
        lock.lock();
        try {
            entries.clear();
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
