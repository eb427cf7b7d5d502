package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.spi.EpFactory;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * One registered EP library: its factories, the EP devices they offer (and, for each EP that offers none, why), its
 * virtual-device grant and whether it is being removed. One object for the library's whole life, so that the
 * {@link LeaseTable} can key leases on it: adding factories or changing the grant changes it in place. It is changed
 * only under the {@link EpRegistry}'s lock; its fields are immutable snapshots, so reading them needs no lock.
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
    private final Closeable classLoader;
    private volatile List<EpFactory> factories = List.of();
    private volatile Map<String, Integer> vendorIds = Map.of();
    private volatile List<EpDevice> devices = List.of();
    private volatile Map<String, String> withoutDevice = Map.of();
    private volatile boolean virtual;
    private volatile State state = State.ACTIVE;

    /**
     * Creates a library from its factories' answers.
     *
     * @param name the registration name
     * @param listings what each factory offers, in factory order
     * @param classLoader the library's own class loader, closed when it is released; {@code null} for built-ins
     * @param virtual whether it may offer virtual devices
     */
    EpLibrary(String name, List<FactoryDevices.Listing> listings, Closeable classLoader, boolean virtual) {
        this.name = name;
        this.classLoader = classLoader;
        this.virtual = virtual;
        add(listings);
    }

    String name() {
        return name;
    }

    List<EpFactory> factories() {
        return factories;
    }

    /** The names of the library's EPs, in factory order. */
    List<String> epNames() {
        return factories.stream().map(EpFactory::name).toList();
    }

    /** Gets the factory of one of the library's EPs, or {@code null}. */
    EpFactory factory(String epName) {
        return factories.stream().filter(f -> f.name().equals(epName)).findFirst().orElse(null);
    }

    List<EpDevice> devices() {
        return devices;
    }

    /** For each EP of the library that offers no device, why. */
    Map<String, String> withoutDevice() {
        return withoutDevice;
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

    /**
     * Adds factories with what they offer, as when a bundle registers one more {@code EpFactory} service.
     *
     * @param listings the new factories' answers
     */
    void add(List<FactoryDevices.Listing> listings) {
        set(factories, vendorIds, devices, withoutDevice, listings);
    }

    private void set(List<EpFactory> baseFactories, Map<String, Integer> baseIds, List<EpDevice> baseDevices,
                     Map<String, String> baseReasons, List<FactoryDevices.Listing> listings) {
        List<EpFactory> allFactories = new ArrayList<>(baseFactories);
        Map<String, Integer> ids = new LinkedHashMap<>(baseIds);
        List<EpDevice> all = new ArrayList<>(baseDevices);
        Map<String, String> reasons = new LinkedHashMap<>(baseReasons);
        for (FactoryDevices.Listing l : listings) {
            allFactories.add(l.factory());
            ids.put(l.factory().name(), l.vendorId());
            all.addAll(l.devices());
            if (l.devices().isEmpty()) {
                reasons.put(l.factory().name(), l.reason());
            }
        }
        factories = List.copyOf(allFactories);
        vendorIds = Map.copyOf(ids);
        devices = List.copyOf(all);
        withoutDevice = Map.copyOf(reasons);
    }

    /**
     * Replaces what the factories offer, as when the library's virtual-device grant changes.
     *
     * @param listings every factory's new answer, in factory order
     * @param newVirtual the new grant
     */
    void relist(List<FactoryDevices.Listing> listings, boolean newVirtual) {
        set(List.of(), Map.of(), List.of(), Map.of(), listings);
        virtual = newVirtual;
    }

    /** Releases the factories' resources and closes the library's own class loader, if it has one. */
    void release(Logger log) {
        state = State.RELEASED;
        if (classLoader != null) {
            try {
                classLoader.close();
            } catch (IOException e) {
                log.warn("closing the class loader of EP library '{}' failed", name, e);
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** A factory's version for a log line, or what stands in for one that fails to give it. */
    private static String versionOf(EpFactory f) {
        try {
            return f.version();
        } catch (RuntimeException e) {
            return "(version unavailable)";
        }
    }

    /**
     * Describes factories and their devices on one line, for the log: each EP with its version, then the devices
     * offered, and why an EP offers none.
     *
     * @param factories the factories
     * @param devices the devices they offer
     * @param withoutDevice for each EP that offers no device, why
     * @return the description
     */
    static String describe(List<EpFactory> factories, List<EpDevice> devices, Map<String, String> withoutDevice) {
        StringBuilder sb = new StringBuilder("EP ");
        for (int i = 0; i < factories.size(); i++) {
            EpFactory f = factories.get(i);
            sb.append(i == 0 ? "" : ", ").append(f.name()).append(' ').append(versionOf(f));
        }
        sb.append("; devices [");
        for (int i = 0; i < devices.size(); i++) {
            EpDevice d = devices.get(i);
            sb.append(i == 0 ? "" : ", ").append(d.epName()).append(" on ").append(d.device().type()).append(' ')
                    .append(d.device().vendor());
            if (d.device().isVirtual()) {
                sb.append(" (virtual)");
            }
        }
        sb.append(']');
        withoutDevice.forEach((ep, why) -> sb.append("; ").append(ep).append(" offers no device: ").append(why));
        return sb.toString();
    }
}
