package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.spi.EpFactory;
import java.io.Closeable;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One registered EP library: its factories, the EP devices they offer, the sessions holding its EPs (leases), and
 * whether it is being removed. Guarded by the {@link EpRegistry}'s lock.
 */
final class EpLibrary {
    /** The life of a library. */
    enum State {
        /** Its devices can be selected. */
        ACTIVE,
        /** Its removal has begun: its devices are hidden, and it waits for the sessions holding it to close. */
        DRAINING,
        /** Its factories were released; nothing of it may run again. */
        RELEASED
    }

    private final String name;
    private final List<EpFactory> factories;
    private final List<EpDevice> devices;
    private final Map<String, Integer> vendorIds;
    private final Closeable classLoader;
    private final boolean virtual;
    private final Set<SessionLease> holders = new LinkedHashSet<>();
    private State state = State.ACTIVE;

    EpLibrary(String name, List<EpFactory> factories, List<EpDevice> devices, Map<String, Integer> vendorIds,
              Closeable classLoader, boolean virtual) {
        this.name = name;
        this.factories = List.copyOf(factories);
        this.devices = List.copyOf(devices);
        this.vendorIds = Map.copyOf(vendorIds);
        this.classLoader = classLoader;
        this.virtual = virtual;
    }

    String name() {
        return name;
    }

    List<EpFactory> factories() {
        return factories;
    }

    List<EpDevice> devices() {
        return devices;
    }

    /**
     * The PCI vendor id each factory reported at registration, kept so that selection never calls a factory that a
     * concurrent unregistration may be releasing.
     */
    int vendorId(String epName) {
        return vendorIds.getOrDefault(epName, 0);
    }

    /** The library's own class loader, {@code null} for a built-in library. */
    Closeable classLoader() {
        return classLoader;
    }

    boolean isVirtual() {
        return virtual;
    }

    State state() {
        return state;
    }

    void state(State s) {
        this.state = s;
    }

    Set<SessionLease> holders() {
        return holders;
    }

    /**
     * Creates the library that replaces this one when factories are added or its virtual-device grant changes: the
     * same name, class loader, state and holders, with new factories and devices.
     *
     * @param newFactories all its factories
     * @param newDevices the devices they offer now
     * @param newVendorIds each factory's vendor id
     * @param newVirtual whether it may offer virtual devices
     * @return the replacement, to be put in the registry in place of this one
     */
    EpLibrary replaced(List<EpFactory> newFactories, List<EpDevice> newDevices, Map<String, Integer> newVendorIds,
                       boolean newVirtual) {
        EpLibrary next = new EpLibrary(name, newFactories, newDevices, newVendorIds, classLoader, newVirtual);
        next.state = state;
        next.holders.addAll(holders);
        return next;
    }

    /** Releases the factories' resources and closes the library's own class loader, if it has one. */
    void release(System.Logger log) {
        state = State.RELEASED;
        if (classLoader != null) {
            try {
                classLoader.close();
            } catch (IOException e) {
                log.log(System.Logger.Level.WARNING, "closing the class loader of EP library '" + name + "' failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
