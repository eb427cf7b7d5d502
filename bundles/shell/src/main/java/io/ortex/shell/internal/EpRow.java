package io.ortex.shell.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.Environment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of {@code ortex eps}: an EP device with the state of its library and the sessions holding it, or an EP
 * of a library that offers no device, with why.
 *
 * @param ep the EP name
 * @param device the EP device; {@code null} when the EP offers none
 * @param library the registration name of its library; empty when the environment does not list libraries
 * @param state ACTIVE, or DRAINING while its library's removal waits for sessions
 * @param holders the ids of the sessions holding the library
 * @param reason why the EP offers no device; empty for a device
 */
record EpRow(String ep, EpDevice device, String library, EpLibraryInfo.State state, List<String> holders,
             String reason) {
    /**
     * Copies the holders.
     *
     * @param ep the EP name
     * @param device the EP device or {@code null}
     * @param library the library name
     * @param state the state
     * @param holders the holders
     * @param reason why it offers no device
     */
    EpRow {
        holders = List.copyOf(holders);
    }

    /**
     * Lists the rows of an environment: the selectable devices in its order, then the devices of draining libraries,
     * then the EPs that offer no device.
     *
     * @param env the environment
     * @return the rows
     */
    static List<EpRow> of(Environment env) {
        List<EpLibraryInfo> libraries = env.epLibraries();
        Map<EpDevice, EpLibraryInfo> owner = new HashMap<>();
        for (EpLibraryInfo lib : libraries) {
            if (lib.state() == EpLibraryInfo.State.ACTIVE) {
                lib.devices().forEach(d -> owner.put(d, lib));
            }
        }
        List<EpRow> rows = new ArrayList<>();
        for (EpDevice d : env.epDevices()) {
            EpLibraryInfo lib = owner.get(d);
            rows.add(lib == null ? new EpRow(d.epName(), d, "", EpLibraryInfo.State.ACTIVE, List.of(), "")
                    : new EpRow(d.epName(), d, lib.name(), EpLibraryInfo.State.ACTIVE, lib.holders(), ""));
        }
        for (EpLibraryInfo lib : libraries) {
            if (lib.state() == EpLibraryInfo.State.DRAINING) {
                lib.devices().forEach(d -> rows.add(new EpRow(d.epName(), d, lib.name(), lib.state(), lib.holders(),
                        "")));
            }
        }
        for (EpLibraryInfo lib : libraries) {
            lib.withoutDevice().forEach((ep, why) -> rows.add(new EpRow(ep, null, lib.name(), lib.state(),
                    lib.holders(), why)));
        }
        return rows;
    }
}
