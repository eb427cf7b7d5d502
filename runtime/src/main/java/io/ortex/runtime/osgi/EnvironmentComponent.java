package io.ortex.runtime.osgi;

import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpLibraryLoader;
import io.ortex.runtime.internal.RuntimeEnvironment;
import io.ortex.runtime.internal.discovery.HardwareDiscovery;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime in an OSGi framework: a Declarative Services component that registers the {@link Environment} service
 * and makes every {@link EpFactory} service of any bundle an EP library of it ({@link EpFactoryTracker} reports the
 * services, {@link BundleLibraries} decides which bundle's library serves); the {@link EpLibraryLoader} services load
 * the libraries registered from files that are not jars ({@link EpLibraryLoaderTracker}). It is
 * configured through ConfigAdmin, PID {@value RuntimeSettings#PID} ({@link RuntimeSettings}); the configuration is
 * optional. In a framework started for one command-line verb, that verb's {@code --env} entries (the framework
 * property {@value RuntimeSettings#COMMAND_ENVIRONMENT}) are added to the environment configuration. A change applies
 * at once, the virtual-device grants included (the affected libraries list their devices
 * again), except the discovery entries, which are read when the component activates (restart the runtime bundle).
 * Thread safe.
 *
 * <p>The service is shared: {@link #close()} does nothing, and the environment with its sessions is closed when the
 * component deactivates (after SCR has unregistered the service).
 */
@Component(service = Environment.class, configurationPid = RuntimeSettings.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL, immediate = true)
@Designate(ocd = RuntimeConfiguration.class)
public final class EnvironmentComponent implements Environment {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.config");

    private final RuntimeEnvironment environment;
    private final BundleLibraries factories;
    private final ServiceTracker<EpFactory, EpFactoryTracker.Tracked> tracker;
    private final ServiceTracker<Object, Object> eventAdmins;
    private final Map<String, String> commandEnvironment;
    private final EpLibraryLoaderTracker loaderCustomizer;
    private final ServiceTracker<EpLibraryLoader, EpLibraryLoader> loaders;
    private volatile RuntimeSettings settings;

    /**
     * Activates the component: discovers the hardware, creates the environment and starts tracking EP factories,
     * registering those already present before the service is used.
     *
     * @param context the runtime bundle's context
     * @param properties the configuration (PID {@value RuntimeSettings#PID}) and component properties
     * @throws InvalidArgumentException naming the key when the configuration is malformed
     */
    @Activate
    public EnvironmentComponent(BundleContext context, Map<String, Object> properties) {
        this.commandEnvironment = commandEnvironment(context.getProperty(RuntimeSettings.COMMAND_ENVIRONMENT));
        this.settings = RuntimeSettings.parse(properties, commandEnvironment);
        Map<String, String> config = settings.environmentConfig();
        this.loaderCustomizer = new EpLibraryLoaderTracker(context, this::runtimeEnvironment, () -> this.settings);
        this.environment = new RuntimeEnvironment(config, new HardwareDiscovery(config).discover(),
                loaderCustomizer::loaders);
        this.loaders = new ServiceTracker<>(context, EpLibraryLoader.class, loaderCustomizer);
        loaders.open();
        this.factories = new BundleLibraries(environment, () -> this.settings);
        // tracked by class name, so that the optional EventAdmin package is touched only when a service exists
        this.eventAdmins = new ServiceTracker<>(context, EpEventPublisher.EVENT_ADMIN, null);
        eventAdmins.open();
        environment.addEpDeviceListener(new EpEventPublisher(eventAdmins::getService));
        this.tracker = new ServiceTracker<>(context, EpFactory.class, new EpFactoryTracker(context, factories));
        tracker.open();
    }

    /**
     * Applies a changed configuration.
     *
     * @param properties the new configuration
     * @throws InvalidArgumentException naming the key when it is malformed; the previous settings stay
     */
    @Modified
    void modified(Map<String, Object> properties) {
        RuntimeSettings next = RuntimeSettings.parse(properties, commandEnvironment);
        environment.limitDefaults(next.environmentConfig());
        if (!next.discoveryConfig().equals(settings.discoveryConfig())) {
            LOG.warn("{}: the discovery entries changed; they apply when the runtime bundle restarts",
                    RuntimeSettings.PID);
        }
        settings = next;
        factories.regrant(next);
    }

    /**
     * Reads the environment entries of the framework's one command ({@value RuntimeSettings#COMMAND_ENVIRONMENT}).
     *
     * @param text the framework property, {@link Properties} text, or {@code null}
     * @return the entries, empty when there are none
     * @throws InvalidArgumentException when the text cannot be read
     */
    static Map<String, String> commandEnvironment(String text) {
        if (text == null || text.isBlank()) {
            return Map.of();
        }
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw new InvalidArgumentException("the framework property " + RuntimeSettings.COMMAND_ENVIRONMENT
                    + " is not properties text: " + e.getMessage());
        }
        Map<String, String> out = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k)));
        return Map.copyOf(out);
    }

    /** Closes the environment and its sessions, then stops tracking (no drain: the libraries are already released). */
    @Deactivate
    void deactivate() {
        environment.close();
        tracker.close();
        loaders.close();
        eventAdmins.close();
    }

    /**
     * Gets the current settings.
     *
     * @return the settings from ConfigAdmin, or the defaults
     */
    RuntimeSettings settings() {
        return settings;
    }

    /** {@inheritDoc} */
    @Override
    public List<HardwareDevice> hardwareDevices() {
        return environment.hardwareDevices();
    }

    /** {@inheritDoc} */
    @Override
    public List<EpDevice> epDevices() {
        return environment.epDevices();
    }

    /** {@inheritDoc} EP bundles are listed under their symbolic names. */
    @Override
    public List<io.ortex.api.EpLibraryInfo> epLibraries() {
        return environment.epLibraries();
    }

    /** {@inheritDoc} */
    @Override
    public Map<String, String> config() {
        return environment.config();
    }

    /**
     * {@inheritDoc} The configured default policy and intra-op threads apply when the options leave them open.
     */
    @Override
    public Session createSession(Path model, SessionOptions options) {
        return environment.createSession(model, settings.applyTo(options));
    }

    /**
     * {@inheritDoc} The configured default policy and intra-op threads apply when the options leave them open.
     */
    @Override
    public Session createSession(byte[] model, SessionOptions options) {
        return environment.createSession(model, settings.applyTo(options));
    }

    /**
     * {@inheritDoc} The configured default policy and intra-op threads apply when the options leave them open.
     */
    @Override
    public io.ortex.api.ModelCompiler modelCompiler(SessionOptions options) {
        return environment.modelCompiler(settings.applyTo(options));
    }

    /** {@inheritDoc} */
    @Override
    public Map<String, io.ortex.api.CompiledModelCompatibility> compiledModelCompatibility(Path model,
                                                                                    List<EpDevice> devices) {
        return environment.compiledModelCompatibility(model, devices);
    }

    /** {@inheritDoc} */
    @Override
    public void registerLibrary(String name, Path jar) {
        environment.registerLibrary(name, jar);
    }

    /**
     * {@inheritDoc} An EP bundle's library cannot be unregistered this way: stop or uninstall the bundle.
     */
    @Override
    public void unregisterLibrary(String name) {
        checkNotBundle(name);
        environment.unregisterLibrary(name);
    }

    /**
     * {@inheritDoc} An EP bundle's library cannot be unregistered this way: stop or uninstall the bundle.
     */
    @Override
    public void unregisterLibrary(String name, Duration timeout) {
        checkNotBundle(name);
        environment.unregisterLibrary(name, timeout);
    }

    private RuntimeEnvironment runtimeEnvironment() {
        return environment;
    }

    /**
     * Removes an EP library as a departing EP bundle's is: hidden at once, then drained with the configured limit and
     * outcome, then released. Nothing happens when no active library has that name.
     *
     * @param name the registration name
     */
    void withdraw(String name) {
        RuntimeSettings s = settings;
        environment.withdrawLibrary(name, s.drainLimit(), s.failAtLimit());
    }

    private void checkNotBundle(String name) {
        if (factories.isBundleLibrary(name)) {
            throw new InvalidArgumentException("EP library '" + name + "' is the EP bundle of that name; stop or "
                    + "uninstall the bundle to remove it");
        }
    }

    /** {@inheritDoc} */
    @Override
    public DeviceIncompatibility deviceIncompatibility(String epName, HardwareDevice device) {
        return environment.deviceIncompatibility(epName, device);
    }

    /** {@inheritDoc} */
    @Override
    public void addEpDeviceListener(EpDeviceListener listener) {
        environment.addEpDeviceListener(listener);
    }

    /** {@inheritDoc} */
    @Override
    public void removeEpDeviceListener(EpDeviceListener listener) {
        environment.removeEpDeviceListener(listener);
    }

    /**
     * Does nothing: the service is shared by every bundle that uses it, and the environment closes with the
     * component.
     */
    @Override
    public void close() {
        // the component's lifecycle owns the environment
    }
}
