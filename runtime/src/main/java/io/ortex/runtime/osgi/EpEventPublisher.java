package io.ortex.runtime.osgi;

import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts EP device arrivals and removals to OSGi EventAdmin, when the framework offers one. Topics
 * {@value #TOPIC_ADDED} and {@value #TOPIC_REMOVED}; properties {@value #LIBRARY} (the EP library's registration
 * name, the bundle symbolic name for EP bundles), {@value #EP_NAMES} and {@value #DEVICE_TYPES} (string arrays, one
 * entry per EP device) and {@value #VIRTUAL} (whether any of them is virtual). Events are posted asynchronously, so
 * a slow handler never delays a bundle stop.
 *
 * <p>The EventAdmin package is imported optionally: this class is only loaded once an EventAdmin service exists, so
 * the runtime works in frameworks without one.
 */
final class EpEventPublisher implements EpDeviceListener {
    /** The EventAdmin service interface, by name. */
    static final String EVENT_ADMIN = "org.osgi.service.event.EventAdmin";
    /** Topic of EP devices that became available. */
    static final String TOPIC_ADDED = "io/ortex/ep/ADDED";
    /** Topic of EP devices that were withdrawn from selection. */
    static final String TOPIC_REMOVED = "io/ortex/ep/REMOVED";
    /** Event property: the EP library's registration name. */
    static final String LIBRARY = "library";
    /** Event property: the EP name of each device. */
    static final String EP_NAMES = "ep.names";
    /** Event property: the hardware device type of each device. */
    static final String DEVICE_TYPES = "device.types";
    /** Event property: whether any device is virtual. */
    static final String VIRTUAL = "virtual";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.events");

    private final Supplier<Object> eventAdmin;
    private volatile boolean unusable;

    /**
     * Creates the publisher.
     *
     * @param eventAdmin gives the current EventAdmin service, or {@code null} when none is present
     */
    EpEventPublisher(Supplier<Object> eventAdmin) {
        this.eventAdmin = eventAdmin;
    }

    @Override
    public void added(String library, List<EpDevice> devices) {
        post(TOPIC_ADDED, library, devices);
    }

    @Override
    public void removed(String library, List<EpDevice> devices) {
        post(TOPIC_REMOVED, library, devices);
    }

    private void post(String topic, String library, List<EpDevice> devices) {
        Object admin = eventAdmin.get();
        if (admin == null || unusable) {
            return;
        }
        try {
            postTo(admin, topic, library, devices);
        } catch (NoClassDefFoundError | ClassCastException e) {
            // an EventAdmin service exists but this bundle is not wired to its package
            unusable = true;
            LOG.warn("EventAdmin is present but not usable by the Ortex runtime: {}", e.toString());
        }
    }

    private static void postTo(Object admin, String topic, String library, List<EpDevice> devices) {
        List<String> names = new ArrayList<>();
        List<String> types = new ArrayList<>();
        boolean virtual = false;
        for (EpDevice d : devices) {
            names.add(d.epName());
            types.add(d.device().type().name());
            virtual |= d.device().isVirtual();
        }
        Map<String, Object> properties = new HashMap<>();
        properties.put(LIBRARY, library);
        properties.put(EP_NAMES, names.toArray(String[]::new));
        properties.put(DEVICE_TYPES, types.toArray(String[]::new));
        properties.put(VIRTUAL, virtual);
        ((EventAdmin) admin).postEvent(new Event(topic, properties));
    }
}
