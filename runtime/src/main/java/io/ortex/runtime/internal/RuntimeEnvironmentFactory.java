package io.ortex.runtime.internal;

import io.ortex.api.Environment;
import io.ortex.api.EnvironmentFactory;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpLibraryLoader;
import io.ortex.runtime.internal.discovery.HardwareDiscovery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Creates environments outside an OSGi framework: EP factories and EP library loaders come from
 * {@link ServiceLoader} (class path or module path) and hardware from this machine and the configuration
 * ({@link HardwareDiscovery}).
 */
public final class RuntimeEnvironmentFactory implements EnvironmentFactory {
    /** Creates the factory; called by {@link ServiceLoader}. */
    public RuntimeEnvironmentFactory() {
    }

    @Override
    public Environment create(Map<String, String> config) {
        List<EpFactory> factories = new ArrayList<>();
        for (EpFactory f : ServiceLoader.load(EpFactory.class, RuntimeEnvironmentFactory.class.getClassLoader())) {
            factories.add(f);
        }
        if (factories.isEmpty()) {
            ServiceLoader.load(EpFactory.class).forEach(factories::add);
        }
        List<EpLibraryLoader> loaders = new ArrayList<>();
        for (EpLibraryLoader l : ServiceLoader.load(EpLibraryLoader.class,
                RuntimeEnvironmentFactory.class.getClassLoader())) {
            loaders.add(l);
        }
        if (loaders.isEmpty()) {
            ServiceLoader.load(EpLibraryLoader.class).forEach(loaders::add);
        }
        List<EpLibraryLoader> found = List.copyOf(loaders);
        return new RuntimeEnvironment(config, new HardwareDiscovery(config).discover(), factories, () -> found);
    }
}
