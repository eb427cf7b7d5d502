package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link EpDeviceListener}s of an environment, told about EP devices arriving and leaving. Called with no lock
 * held; a listener that throws is logged and the others are still told. Thread safe.
 */
final class DeviceListeners {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.registry");

    private final List<EpDeviceListener> listeners = new CopyOnWriteArrayList<>();

    void add(EpDeviceListener l) {
        listeners.add(l);
    }

    void remove(EpDeviceListener l) {
        listeners.remove(l);
    }

    /**
     * Tells every listener that a library's devices can be selected; nothing when there are none.
     *
     * @param library the registration name
     * @param devices the devices
     */
    void added(String library, List<EpDevice> devices) {
        if (!devices.isEmpty()) {
            listeners.forEach(l -> notify(() -> l.added(library, devices)));
        }
    }

    /**
     * Tells every listener that a library's devices can no longer be selected; nothing when there are none.
     *
     * @param library the registration name
     * @param devices the devices
     */
    void removed(String library, List<EpDevice> devices) {
        if (!devices.isEmpty()) {
            listeners.forEach(l -> notify(() -> l.removed(library, devices)));
        }
    }

    private static void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("an EP device listener failed", e);
        }
    }
}
