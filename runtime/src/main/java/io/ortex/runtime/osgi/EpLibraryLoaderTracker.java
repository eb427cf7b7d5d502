package io.ortex.runtime.osgi;

import io.ortex.api.spi.EpLibraryLoader;
import io.ortex.runtime.internal.RuntimeEnvironment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTrackerCustomizer;

/**
 * Keeps the {@link EpLibraryLoader} services of the framework available to a {@link RuntimeEnvironment}, which asks
 * them to load the libraries that are not jars (for example native ONNX Runtime plugin-EP libraries). When a loader
 * service goes away (its bundle stops, is updated or uninstalled), it is no longer offered new files, and every
 * library it loaded is withdrawn on the unregistering thread as an EP bundle's is (hidden, then drained with the
 * configured limit and outcome, then unloaded) before the service is released. Thread safe.
 */
final class EpLibraryLoaderTracker implements ServiceTrackerCustomizer<EpLibraryLoader, EpLibraryLoader> {
    private final BundleContext context;
    private final Supplier<RuntimeEnvironment> environment;
    private final Supplier<RuntimeSettings> settings;
    private final List<EpLibraryLoader> loaders = new CopyOnWriteArrayList<>();

    /**
     * Creates the customizer.
     *
     * @param context the runtime bundle's context, used to get and unget the services
     * @param environment the environment whose libraries a departing loader takes along
     * @param settings the current configuration (drain limit and outcome)
     */
    EpLibraryLoaderTracker(BundleContext context, Supplier<RuntimeEnvironment> environment,
                           Supplier<RuntimeSettings> settings) {
        this.context = context;
        this.environment = environment;
        this.settings = settings;
    }

    /**
     * Gets the loaders available now, in the order they arrived.
     *
     * @return a snapshot
     */
    List<EpLibraryLoader> loaders() {
        return List.copyOf(loaders);
    }

    @Override
    public EpLibraryLoader addingService(ServiceReference<EpLibraryLoader> ref) {
        EpLibraryLoader loader = context.getService(ref);
        if (loader != null) {
            loaders.add(loader);
        }
        return loader;
    }

    @Override
    public void modifiedService(ServiceReference<EpLibraryLoader> ref, EpLibraryLoader loader) {
        // nothing in the properties matters
    }

    @Override
    public void removedService(ServiceReference<EpLibraryLoader> ref, EpLibraryLoader loader) {
        loaders.remove(loader);
        try {
            RuntimeSettings s = settings.get();
            environment.get().withdrawLoadedBy(loader, s.drainLimit(), s.failAtLimit());
        } finally {
            context.ungetService(ref);
        }
    }
}
