package io.ortex.shell.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.Environment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of {@code ortex eps}: an EP device with the state of its library and the sessions holding it.
 *
 * @param device the EP device
 * @param library the registration name of its library; empty when the environment does not list libraries
 * @param state ACTIVE, or DRAINING while its library's removal waits for sessions
 * @param holders the ids of the sessions holding the library
 */
record EpRow(EpDevice device, String library, EpLibraryInfo.State state, List<String> holders) {
    /**
     * Copies the holders.
     *
     * @param device the EP device
     * @param library the library name
     * @param state the state
     * @param holders the holders
     */
    EpRow {
        holders = List.copyOf(holders);
    }

    /**
     * Lists the rows of an environment: the selectable devices in its order, then the devices of draining libraries.
     *
     * @param env the environment
     * @return the rows
     */
    static List<EpRow> of(Environment env) {
        List<EpLibraryInfo> libraries = env.epLibraries();
        Map<EpDevice, EpLibraryInfo> owner = new HashMap<>();
        for (EpLibraryInfo lib : libraries) {
            lib.devices().forEach(d -> owner.put(d, lib));
        }
        List<EpRow> rows = new ArrayList<>();
        for (EpDevice d : env.epDevices()) {
            EpLibraryInfo lib = owner.get(d);
            rows.add(lib == null ? new EpRow(d, "", EpLibraryInfo.State.ACTIVE, List.of())
                    : new EpRow(d, lib.name(), EpLibraryInfo.State.ACTIVE, lib.holders()));
        }
        for (EpLibraryInfo lib : libraries) {
            if (lib.state() == EpLibraryInfo.State.DRAINING) {
                lib.devices().forEach(d -> rows.add(new EpRow(d, lib.name(), lib.state(), lib.holders())));
            }
        }
        return rows;
    }
}
