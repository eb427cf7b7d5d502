package io.ortex.runtime.osgi;

import io.ortex.api.spi.EpFactory;
import io.ortex.runtime.internal.RuntimeEnvironment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTrackerCustomizer;

/**
 * Turns the {@link EpFactory} services of the framework into EP libraries of a {@link RuntimeEnvironment}: the
 * factories of one bundle form one library registered under the bundle's symbolic name. When a factory service goes
 * away (its bundle stops, is updated or uninstalled), its library is withdrawn on the unregistering thread, which
 * blocks until the sessions holding it are closed or the drain outcome applies; only then is the service released,
 * so the provider's deactivation runs after. A service tracker rather than a DS reference, so that a long drain holds
 * no lock of SCR's and other EP bundles can come and go meanwhile. Thread safe: the bookkeeping is guarded by this
 * object's monitor, which is never held while draining.
 */
final class EpFactoryTracker implements ServiceTrackerCustomizer<EpFactory, EpFactoryTracker.Tracked> {
    /** Service property an EP bundle publishes: the EP name its factory reports. */
    static final String EP_NAME = "ep.name";
    /** Service property an EP bundle publishes: the EP vendor. */
    static final String EP_VENDOR = "ep.vendor";
    /** Service property an EP bundle publishes: the device types its factory offers (CPU, GPU, NPU). */
    static final String EP_DEVICE_TYPES = "ep.device_types";

    private static final System.Logger LOG = System.getLogger(EpFactoryTracker.class.getName());

    /**
     * One tracked factory service.
     *
     * @param library the library it belongs to (its bundle's symbolic name)
     * @param bundle the bundle that registered it
     * @param factory the service object
     */
    record Tracked(String library, Bundle bundle, EpFactory factory) {
    }

    /** The factories of one bundle and whether they are registered as a library now. */
    private static final class Group {
        final Map<ServiceReference<EpFactory>, EpFactory> factories = new LinkedHashMap<>();
        boolean registered;
    }

    private final BundleContext context;
    private final RuntimeEnvironment environment;
    private final Supplier<RuntimeSettings> settings;
    private final Map<String, Group> groups = new HashMap<>();

    /**
     * Creates the customizer.
     *
     * @param context the runtime bundle's context, used to get and unget the services
     * @param environment the environment the libraries go to
     * @param settings the current configuration (drain limit and outcome, virtual-device grants)
     */
    EpFactoryTracker(BundleContext context, RuntimeEnvironment environment, Supplier<RuntimeSettings> settings) {
        this.context = context;
        this.environment = environment;
        this.settings = settings;
    }

    @Override
    public Tracked addingService(ServiceReference<EpFactory> ref) {
        Bundle bundle = ref.getBundle();
        EpFactory factory = bundle == null ? null : context.getService(ref);
        if (factory == null) {
            return null;
        }
        String library = bundle.getSymbolicName();
        checkProperties(ref, factory, library);
        synchronized (this) {
            Group g = groups.computeIfAbsent(library, k -> new Group());
            g.factories.put(ref, factory);
            try {
                if (g.registered) {
                    environment.addFactories(library, List.of(factory));
                } else {
                    environment.registerFactories(library, new ArrayList<>(g.factories.values()),
                            settings.get().grantsVirtualDevices(library));
                    g.registered = true;
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "EP factory service " + ref.getProperty("service.id")
                        + " of bundle " + library + " is not used: " + e.getMessage(), e);
                g.factories.remove(ref);
                if (g.factories.isEmpty() && !g.registered) {
                    groups.remove(library);
                }
                context.ungetService(ref);
                return null;
            }
        }
        return new Tracked(library, bundle, factory);
    }

    private static void checkProperties(ServiceReference<EpFactory> ref, EpFactory factory, String library) {
        Object name = ref.getProperty(EP_NAME);
        if (name == null || ref.getProperty(EP_VENDOR) == null || ref.getProperty(EP_DEVICE_TYPES) == null) {
            LOG.log(System.Logger.Level.WARNING, "the EP factory service of bundle " + library + " lacks one of the "
                    + "properties " + EP_NAME + ", " + EP_VENDOR + ", " + EP_DEVICE_TYPES);
        } else if (!name.equals(factory.name())) {
            LOG.log(System.Logger.Level.WARNING, "the EP factory service of bundle " + library + " says " + EP_NAME
                    + "=" + name + " but its factory is named " + factory.name());
        }
    }

    @Override
    public void modifiedService(ServiceReference<EpFactory> ref, Tracked tracked) {
        // the properties only describe the factory; the library is unchanged
    }

    @Override
    public void removedService(ServiceReference<EpFactory> ref, Tracked tracked) {
        String library = tracked.library();
        boolean withdraw;
        synchronized (this) {
            Group g = groups.get(library);
            withdraw = g != null && g.registered;
            if (g != null) {
                g.registered = false;
                g.factories.remove(ref);
                if (g.factories.isEmpty()) {
                    groups.remove(library);
                }
            }
        }
        try {
            if (withdraw) {
                RuntimeSettings s = settings.get();
                environment.withdrawLibrary(library, s.drainLimit(), s.failAtLimit());
            }
        } finally {
            context.ungetService(ref);
        }
        if (withdraw && tracked.bundle().getState() == Bundle.ACTIVE) {
            reregister(library);
        }
    }

    /** Registers again the other factories of a bundle that stays active after one of its services went away. */
    private synchronized void reregister(String library) {
        Group g = groups.get(library);
        if (g == null || g.registered || g.factories.isEmpty()) {
            return;
        }
        try {
            environment.registerFactories(library, new ArrayList<>(g.factories.values()),
                    settings.get().grantsVirtualDevices(library));
            g.registered = true;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "the remaining EP factories of bundle " + library + " are not used: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Applies the virtual-device grants of new settings to the registered libraries: each library whose grant
     * changed is asked for its devices again.
     *
     * @param next the new settings
     */
    synchronized void regrant(RuntimeSettings next) {
        groups.forEach((library, g) -> {
            if (g.registered) {
                try {
                    environment.regrantVirtualDevices(library, next.grantsVirtualDevices(library));
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.ERROR, "EP library " + library + " failed to list its devices again: "
                            + e.getMessage(), e);
                }
            }
        });
    }

    /**
     * Tells whether a library is an EP bundle's, managed by this tracker.
     *
     * @param library the registration name
     * @return true when a tracked bundle has that symbolic name
     */
    synchronized boolean isBundleLibrary(String library) {
        return groups.containsKey(library);
    }
}
