package io.ortex.runtime.osgi;

import io.ortex.api.spi.EpFactory;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTrackerCustomizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Translates the framework's {@link EpFactory} service events for {@link BundleLibraries}, which decides what they
 * mean for the EP libraries: a service arriving is got and reported with its bundle's symbolic name, version and id;
 * a service going is reported, on the unregistering thread, which blocks until the library is drained, and only then
 * given back, so that the provider's deactivation runs after. A service tracker rather than a DS reference, so that
 * a long drain holds no lock of SCR's and other EP bundles can come and go meanwhile. Thread safe.
 */
final class EpFactoryTracker implements ServiceTrackerCustomizer<EpFactory, EpFactoryTracker.Tracked> {
    /** Service property an EP bundle publishes: the EP name its factory reports. */
    static final String EP_NAME = "ep.name";
    /** Service property an EP bundle publishes: the EP vendor. */
    static final String EP_VENDOR = "ep.vendor";
    /** Service property an EP bundle publishes: the device types its factory offers (CPU, GPU, NPU). */
    static final String EP_DEVICE_TYPES = "ep.device_types";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.registry");

    /**
     * One tracked factory service.
     *
     * @param bundle the bundle that registered it
     * @param serviceId its service id
     * @param factory the service object
     */
    record Tracked(Bundle bundle, long serviceId, EpFactory factory) {
    }

    private final BundleContext context;
    private final BundleLibraries libraries;

    /**
     * Creates the customizer.
     *
     * @param context the runtime bundle's context, used to get and unget the services
     * @param libraries what the services are reported to
     */
    EpFactoryTracker(BundleContext context, BundleLibraries libraries) {
        this.context = context;
        this.libraries = libraries;
    }

    @Override
    public Tracked addingService(ServiceReference<EpFactory> ref) {
        Bundle bundle = ref.getBundle();
        EpFactory factory = bundle == null ? null : context.getService(ref);
        if (factory == null) {
            return null;
        }
        long serviceId = (Long) ref.getProperty(Constants.SERVICE_ID);
        checkProperties(ref, factory, bundle.getSymbolicName());
        if (!libraries.factoryAdded(bundle.getBundleId(), bundle.getSymbolicName(), bundle.getVersion(), serviceId,
                factory)) {
            context.ungetService(ref);
            return null;
        }
        return new Tracked(bundle, serviceId, factory);
    }

    private static void checkProperties(ServiceReference<EpFactory> ref, EpFactory factory, String bundle) {
        Object name = ref.getProperty(EP_NAME);
        if (name == null || ref.getProperty(EP_VENDOR) == null || ref.getProperty(EP_DEVICE_TYPES) == null) {
            LOG.warn("the EP factory service of bundle {} lacks one of the properties {}, {}, {}", bundle, EP_NAME,
                    EP_VENDOR, EP_DEVICE_TYPES);
        } else if (!name.equals(factory.name())) {
            LOG.warn("the EP factory service of bundle {} says {}={} but its factory is named {}", bundle, EP_NAME,
                    name, factory.name());
        }
    }

    @Override
    public void modifiedService(ServiceReference<EpFactory> ref, Tracked tracked) {
        // the properties only describe the factory; the library is unchanged
    }

    @Override
    public void removedService(ServiceReference<EpFactory> ref, Tracked tracked) {
        try {
            libraries.factoryRemoved(tracked.bundle().getBundleId(), tracked.serviceId(),
                    () -> tracked.bundle().getState() == Bundle.ACTIVE);
        } finally {
            context.ungetService(ref);
        }
    }
}
