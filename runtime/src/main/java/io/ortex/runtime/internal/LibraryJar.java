package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.spi.EpFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

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
     * @param jar the jar file
     * @return the factories and the loader
     * @throws InvalidArgumentException naming the jar when it is missing, a folder or not a zip file, when it declares
     *         no factory of its own or a provider fails
     */
    static Loaded load(String name, Path jar) {
        check(name, jar);
        URLClassLoader loader;
        try {
            loader = new URLClassLoader("ortex-ep-" + name, new URL[] {jar.toUri().toURL()},
                    EpFactory.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library " + Names.quote(name)
                    + ": bad path " + jar, e);
        }
        try {
            List<EpFactory> factories = new ArrayList<>();
            List<String> elsewhere = new ArrayList<>();
            for (ServiceLoader.Provider<EpFactory> p : ServiceLoader.load(EpFactory.class, loader).stream().toList()) {
                if (p.type().getClassLoader() == loader) {
                    factories.add(p.get());
                } else {
                    elsewhere.add(p.type().getName());
                }
            }
            if (factories.isEmpty()) {
                List<String> declared = declaredProviders(jar);
                if (!declared.isEmpty() && elsewhere.containsAll(declared)) {
                    throw new InvalidArgumentException("EP library " + Names.quote(name) + ": " + jar + " declares "
                            + String.join(", ", declared) + ", but the application already loads "
                            + (declared.size() == 1 ? "that class" : "those classes")
                            + " from its class or module path, so the jar adds no EP; its EPs are registered already");
                }
                throw new InvalidArgumentException("EP library " + Names.quote(name) + ": " + jar + " declares no "
                        + EpFactory.class.getName() + " provider in META-INF/services");
            }
            return new Loaded(List.copyOf(factories), loader);
        } catch (ServiceConfigurationError e) {
            closeQuietly(loader);
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library " + Names.quote(name) + ": "
                    + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(loader);
            throw e;
        }
    }

    /** Refuses a library path that is missing, a folder, or not a jar (zip) file, each with its own message. */
    private static void check(String name, Path jar) {
        if (jar == null || !Files.exists(jar)) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "EP library " + Names.quote(name) + ": " + jar
                    + " does not exist", null);
        }
        if (Files.isDirectory(jar)) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "EP library " + Names.quote(name) + ": " + jar
                    + " is a folder, not a jar file", null);
        }
        try (JarFile ignored = new JarFile(jar.toFile())) {
            // readable as a zip: the class loader can use it
        } catch (IOException e) {
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "EP library " + Names.quote(name) + ": "
                    + jar + " is not a jar (zip) file" + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
        }
    }

    /** The provider classes a jar names in its {@code META-INF/services} file for {@link EpFactory}. */
    private static List<String> declaredProviders(Path jar) {
        List<String> names = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            JarEntry entry = file.getJarEntry("META-INF/services/" + EpFactory.class.getName());
            if (entry == null) {
                return names;
            }
            try (BufferedReader in = new BufferedReader(new InputStreamReader(file.getInputStream(entry),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    int hash = line.indexOf('#');
                    String provider = (hash >= 0 ? line.substring(0, hash) : line).trim();
                    if (!provider.isEmpty()) {
                        names.add(provider);
                    }
                }
            }
        } catch (IOException e) {
            // the jar was readable a moment ago; without its list the plain message applies
        }
        return names;
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
