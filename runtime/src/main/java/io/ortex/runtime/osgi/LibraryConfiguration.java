package io.ortex.runtime.osgi;

import io.ortex.api.Environment;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import java.nio.file.Path;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An EP library registered by configuration: one component per configuration of the factory PID
 * {@value #FACTORY_PID}, for example a file {@code io.ortex.runtime.library-vendor.cfg} dropped into {@code deploy/}
 * with {@code path=/opt/vendor/libvendor_ep.so}. The library (a jar, or a native ONNX Runtime plugin-EP library when
 * the ONNX Runtime EP bundle is present) is registered with the runtime's {@link Environment} when the configuration
 * appears, and withdrawn like an EP bundle (hidden, drained with the runtime's drain settings, then unloaded) when it
 * goes away; a change re-registers it.
 *
 * <p>Keys: {@value #PATH} (required) the library file; {@value #NAME} the registration name, by default the
 * configuration's name (the part of a {@code .cfg} file name after the first {@code -}). A name ending in
 * {@code .virtual} lets the library offer virtual devices.
 */
@Component(service = {}, configurationPid = LibraryConfiguration.FACTORY_PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE, immediate = true)
public final class LibraryConfiguration {
    /** The factory PID of library configurations. */
    public static final String FACTORY_PID = "io.ortex.runtime.library";
    /** Key: the library file. Required. */
    public static final String PATH = "path";
    /** Key: the registration name. Default: the configuration's name. */
    public static final String NAME = "name";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.registry");

    private final Environment environment;
    private final String name;

    /**
     * Registers the configured library.
     *
     * @param environment the runtime's Environment service
     * @param properties the configuration
     * @throws InvalidArgumentException naming the configuration when a key is missing or the library cannot be
     *     registered
     */
    @Activate
    public LibraryConfiguration(@Reference Environment environment, Map<String, Object> properties) {
        this.environment = environment;
        String source = source(properties);
        Object path = properties.get(PATH);
        if (path == null || path.toString().isBlank()) {
            throw logged(new InvalidArgumentException(source + ": the key '" + PATH + "' (the EP library file) is "
                    + "missing"));
        }
        this.name = name(properties, source);
        try {
            environment.registerLibrary(name, Path.of(path.toString().trim()));
        } catch (RuntimeException e) {
            throw logged(new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, source + ": " + e.getMessage(), e));
        }
        LOG.info("{}: EP library '{}' registered from {}", source, name, path);
    }

    /** Withdraws the library: hidden at once, then drained, then unloaded. */
    @Deactivate
    void deactivate() {
        if (environment instanceof EnvironmentComponent runtime) {
            runtime.withdraw(name);
        } else {
            environment.unregisterLibrary(name, java.time.Duration.ofSeconds(RuntimeSettings
                    .DEFAULT_DRAIN_LIMIT_SECONDS));
        }
    }

    private static RuntimeException logged(RuntimeException e) {
        LOG.error("{}", e.getMessage());
        return e;
    }

    /** Describes where the configuration comes from: its file, else its PID. */
    private static String source(Map<String, Object> properties) {
        Object file = properties.get("felix.fileinstall.filename");
        return file != null ? file.toString() : FACTORY_PID + " configuration " + properties.get("service.pid");
    }

    /** The registration name: the {@value #NAME} key, else the configuration's own name. */
    static String name(Map<String, Object> properties, String source) {
        Object explicit = properties.get(NAME);
        if (explicit != null && !explicit.toString().isBlank()) {
            return explicit.toString().trim();
        }
        Object pid = properties.get("service.pid");
        if (pid != null && pid.toString().contains("~")) {
            return pid.toString().substring(pid.toString().indexOf('~') + 1);
        }
        Object file = properties.get("felix.fileinstall.filename");
        if (file != null) {
            String base = file.toString().substring(file.toString().lastIndexOf('/') + 1);
            int dash = base.indexOf('-');
            int dot = base.lastIndexOf('.');
            if (dash > 0 && dot > dash + 1) {
                return base.substring(dash + 1, dot);
            }
        }
        throw logged(new InvalidArgumentException(source + ": the key '" + NAME + "' (the registration name) is "
                + "missing"));
    }
}
