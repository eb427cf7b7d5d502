package io.ortex.runtime.internal;

import io.ortex.api.EpLibraryInfo;
import java.util.ArrayList;
import java.util.List;

/** What tools and tests see of the EP libraries: snapshots with their states, holders and reasons. Stateless. */
final class LibraryInfos {
    private LibraryInfos() {
    }

    /**
     * Takes a snapshot of the libraries, active and draining, with the ids of the sessions holding them and, for
     * each EP that offers no device, why.
     *
     * @param libraries the libraries, in registration order
     * @param leases the leases on them
     * @return one entry per library that is not released
     */
    static List<EpLibraryInfo> of(List<EpLibrary> libraries, LeaseTable leases) {
        List<EpLibraryInfo> out = new ArrayList<>();
        for (EpLibrary lib : libraries) {
            EpLibraryInfo.State state = switch (lib.state()) {
                case ACTIVE -> EpLibraryInfo.State.ACTIVE;
                case DRAINING -> EpLibraryInfo.State.DRAINING;
                case RELEASED -> null;
            };
            if (state != null) {
                out.add(new EpLibraryInfo(lib.name(), state, lib.devices(),
                        leases.holders(lib).stream().map(SessionLease::sessionId).toList(), lib.withoutDevice()));
            }
        }
        return out;
    }

    /**
     * Describes the libraries for tests: name, state and holders.
     *
     * @param libraries the libraries
     * @param leases the leases on them
     * @return one line per library
     */
    static List<String> describe(List<EpLibrary> libraries, LeaseTable leases) {
        return libraries.stream().map(lib -> lib.name() + " " + lib.state() + " " + leases.holders(lib)).toList();
    }

    /**
     * Finds the class loader of a library registered from a jar, for tests that check it can be collected.
     *
     * @param libraries the libraries
     * @param name the registration name
     * @return the loader, or {@code null} for a built-in library or an unknown name
     */
    static ClassLoader classLoader(List<EpLibrary> libraries, String name) {
        for (EpLibrary lib : libraries) {
            if (lib.name().equals(name) && lib.classLoader() instanceof ClassLoader l) {
                return l;
            }
        }
        return null;
    }
}
