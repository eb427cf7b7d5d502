package io.ortex.api;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of one EP library of an {@link Environment}, for tools such as the {@code ortex:eps} shell command: its
 * registration name (an EP bundle's symbolic name in a framework), whether its devices can be selected or its
 * removal is waiting for sessions, its EP devices, the sessions that hold its EPs, and, for each of its EPs that
 * offers no device, why. Immutable.
 *
 * @param name the registration name
 * @param state whether the library is selectable or being removed
 * @param devices its EP devices; while {@link State#DRAINING} these are no longer in {@link Environment#epDevices()}
 * @param holders the ids of the sessions (see {@link Session#id()}) holding its EPs, in the order they took them;
 *                short-lived queries of the environment appear under their own ids
 * @param withoutDevice for each EP of the library that offers no device, by EP name, why: its virtual devices are
 *                      not granted, no hardware found is one it supports, or its factory failed (with the message);
 *                      added in package version 0.3.0
 */
public record EpLibraryInfo(String name, State state, List<EpDevice> devices, List<String> holders,
                            Map<String, String> withoutDevice) {
    /** The life of an EP library as tools see it. */
    public enum State {
        /** Its devices can be selected. */
        ACTIVE,
        /** Its removal has begun: its devices are hidden and it waits for the sessions holding it to close. */
        DRAINING
    }

    /**
     * Copies the collections into unmodifiable ones.
     *
     * @param name the registration name
     * @param state the state
     * @param devices the EP devices
     * @param holders the holding session ids
     * @param withoutDevice why each EP that offers no device offers none
     */
    public EpLibraryInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        devices = List.copyOf(devices);
        holders = List.copyOf(holders);
        withoutDevice = Map.copyOf(withoutDevice);
    }

    /**
     * Creates a snapshot of a library whose EPs all offer devices.
     *
     * @param name the registration name
     * @param state the state
     * @param devices the EP devices
     * @param holders the holding session ids
     */
    public EpLibraryInfo(String name, State state, List<EpDevice> devices, List<String> holders) {
        this(name, state, devices, holders, Map.of());
    }
}
