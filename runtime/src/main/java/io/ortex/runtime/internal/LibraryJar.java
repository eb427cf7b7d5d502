package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.EpFactory;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Loads an EP library jar registered by path: a class loader of its own (whose parent sees the API), and the
 * {@link EpFactory} providers the jar itself declares in {@code META-INF/services}. Stateless.
 */
final class LibraryJar {
    /**
     * A loaded jar.
     *
     * @param factories its factories, in the order it declares them
     * @param loader its own class loader, to close when the library is released
     */
    record Loaded(List<EpFactory> factories, URLClassLoader loader) {
    }

    private LibraryJar() {
    }

    /**
     * Loads a jar's factories.
     *
     * @param name the registration name, for messages
     * @param jar the jar file, which exists
     * @return the factories and the loader
     * @throws InvalidArgumentException naming the jar when it declares no factory or a provider fails
     */
    static Loaded load(String name, java.nio.file.Path jar) {
        URLClassLoader loader;
        try {
            loader = new URLClassLoader("ortex-ep-" + name, new URL[] {jar.toUri().toURL()},
                    EpFactory.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library '" + name + "': bad path "
                    + jar, e);
        }
        try {
            List<EpFactory> factories = new ArrayList<>();
            for (ServiceLoader.Provider<EpFactory> p : ServiceLoader.load(EpFactory.class, loader).stream().toList()) {
                if (p.type().getClassLoader() == loader) {
                    factories.add(p.get());
                }
            }
            if (factories.isEmpty()) {
                throw new InvalidArgumentException("EP library '" + name + "': " + jar + " declares no "
                        + EpFactory.class.getName() + " provider in META-INF/services");
            }
            return new Loaded(List.copyOf(factories), loader);
        } catch (ServiceConfigurationError e) {
            closeQuietly(loader);
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library '" + name + "': "
                    + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(loader);
            throw e;
        }
    }

    /**
     * Closes a jar's class loader, ignoring a failure: nothing loaded from it needs closing.
     *
     * @param loader the loader
     */
    static void closeQuietly(URLClassLoader loader) {
        try {
            loader.close();
        } catch (IOException ignored) {
            // nothing was loaded from it that needs closing
        }
    }
}
