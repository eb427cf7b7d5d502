package io.ortex.serve.osgi;

import io.ortex.api.Environment;
import io.ortex.serve.internal.InferenceCore;
import io.ortex.serve.internal.Metrics;
import io.ortex.serve.internal.ModelRepository;
import io.ortex.serve.internal.status.StatusCollector;
import io.ortex.serve.internal.status.StatusHandler;
import java.nio.file.Path;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The model repository and the metrics as a component: loads the models folder when the runtime's
 * {@link Environment} is there, watches it, and unloads everything when deactivated (a new configuration restarts
 * it). The servlets, the gRPC endpoint, the Web Console plugin and the shell command use it.
 */
@Component(service = RepositoryComponent.class, configurationPid = ServeConfiguration.PID)
@Designate(ocd = ServeConfiguration.class)
public final class RepositoryComponent {
    private final ModelRepository repository;
    private final Metrics metrics;
    private final ServeConfiguration config;
    private final String version;
    private final InferenceCore core;
    private final StatusHandler status;

    /**
     * Starts the repository.
     *
     * @param environment the runtime
     * @param config the configuration
     * @param context the bundle's context (for {@code ortex.home} and the version)
     */
    @Activate
    public RepositoryComponent(@Reference Environment environment, ServeConfiguration config,
            BundleContext context) {
        this.config = config;
        this.version = context.getBundle().getVersion().toString();
        this.metrics = new Metrics(environment::epDevices, environment::epLibraries);
        this.repository = new ModelRepository(environment, modelsDir(config, context));
        this.core = new InferenceCore(repository, metrics, version);
        this.status = new StatusHandler(new StatusCollector(environment, repository, metrics, version));
        repository.start(Math.max(50, config.poll_ms()));
    }

    private static Path modelsDir(ServeConfiguration config, BundleContext context) {
        if (!config.models_dir().isBlank()) {
            return Path.of(config.models_dir());
        }
        String home = context.getProperty("ortex.home");
        return home == null ? Path.of("models") : Path.of(home, "models");
    }

    /** Unloads every model; their sessions close when their running requests end. */
    @Deactivate
    void deactivate() {
        repository.close();
    }

    /**
     * Gets the repository.
     *
     * @return the repository
     */
    public ModelRepository repository() {
        return repository;
    }

    /**
     * Gets the metrics.
     *
     * @return the metrics
     */
    public Metrics metrics() {
        return metrics;
    }

    /**
     * Gets the configuration.
     *
     * @return the configuration
     */
    public ServeConfiguration config() {
        return config;
    }

    /**
     * Gets the server's version (the bundle's).
     *
     * @return the version
     */
    public String version() {
        return version;
    }

    /**
     * Gets the status page's handler, which the status servlet and the Web Console plugin share.
     *
     * @return the handler
     */
    public StatusHandler status() {
        return status;
    }

    /**
     * Gets the protocol's core, which the REST routes and the gRPC service share.
     *
     * @return the core
     */
    public InferenceCore core() {
        return core;
    }
}
