package io.ortex.api;

import java.util.List;
import java.util.Objects;

/**
 * A snapshot of one EP library of an {@link Environment}, for tools such as the {@code ortex:eps} shell command: its
 * registration name (an EP bundle's symbolic name in a framework), whether its devices can be selected or its
 * removal is waiting for sessions, its EP devices, and the sessions that hold its EPs. Immutable.
 *
 * @param name the registration name
 * @param state whether the library is selectable or being removed
 * @param devices its EP devices; while {@link State#DRAINING} these are no longer in {@link Environment#epDevices()}
 * @param holders the ids of the sessions (see {@link Session#id()}) holding its EPs, in the order they took them;
 *                short-lived queries of the environment appear under their own ids
 */
public record EpLibraryInfo(String name, State state, List<EpDevice> devices, List<String> holders) {
    /** The life of an EP library as tools see it. */
    public enum State {
        /** Its devices can be selected. */
        ACTIVE,
        /** Its removal has begun: its devices are hidden and it waits for the sessions holding it to close. */
        DRAINING
    }

    /**
     * Copies the lists into unmodifiable ones.
     *
     * @param name the registration name
     * @param state the state
     * @param devices the EP devices
     * @param holders the holding session ids
     */
    public EpLibraryInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        devices = List.copyOf(devices);
        holders = List.copyOf(holders);
    }
}
