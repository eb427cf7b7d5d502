package io.ortex.serve.osgi;

import io.ortex.api.Names;
import io.ortex.serve.internal.GrpcInferRequestDecoder;
import io.ortex.serve.internal.GrpcInferenceService;
import io.ortex.serve.internal.GrpcServer;
import java.io.IOException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Open Inference Protocol's gRPC endpoint as a component: listens on {@code grpc.host}:{@code grpc.port} of the
 * server's configuration (off when the port is 0 or less) with a message limit of {@code max.request.bytes}, and
 * answers through the same core as the REST servlet. A port it cannot listen on is logged, not thrown: the REST side
 * goes on serving. It restarts with the repository component when the configuration changes.
 */
@Component(service = GrpcEndpoint.class, immediate = true)
public final class GrpcEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.serve.grpc");

    /** The running server, or null when off or when it could not listen. */
    private final GrpcServer server;

    /**
     * Starts the endpoint.
     *
     * @param repository the repository component
     */
    @Activate
    public GrpcEndpoint(@Reference RepositoryComponent repository) {
        ServeConfiguration config = repository.config();
        int port = config.grpc_port();
        if (port <= 0) {
            LOG.info("gRPC endpoint off (grpc.port={})", port);
            server = null;
            return;
        }
        String host = config.grpc_host().isBlank() ? ServeConfiguration.GRPC_HOST_DEFAULT : config.grpc_host().strip();
        int maxMessage = (int) Math.max(1, Math.min(config.max_request_bytes(), Integer.MAX_VALUE));
        GrpcServer started = null;
        try {
            started = GrpcServer.start(host, port, maxMessage, new GrpcInferenceService(repository.core(),
                    new GrpcInferRequestDecoder(config.max_tensor_elements())));
            LOG.info("gRPC endpoint listening on {}:{}", host, started.port());
        } catch (IOException | RuntimeException e) {
            LOG.error("gRPC endpoint cannot listen on {}:{} (grpc.host, grpc.port in {}): {}", Names.oneLine(host),
                    port, ServeConfiguration.PID, Names.oneLine(String.valueOf(rootCause(e))));
        }
        server = started;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Gets the port the endpoint listens on.
     *
     * @return the port, or -1 when it is off or could not listen
     */
    public int port() {
        return server == null ? -1 : server.port();
    }

    /** Stops listening; running calls get a few seconds to finish. */
    @Deactivate
    void deactivate() {
        if (server != null) {
            server.close();
        }
    }
}
