package io.ortex.serve.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The server's configuration, ConfigAdmin PID {@value #PID} ({@code conf/io.ortex.serve.cfg} in the distribution).
 * The HTTP port is Felix HTTP's: the framework property {@code org.osgi.service.http.port} or the PID
 * {@code org.apache.felix.http}. The gRPC endpoint is the server's own: {@code grpc.host} and {@code grpc.port}.
 */
@ObjectClassDefinition(id = ServeConfiguration.PID, name = "Ortex model server",
        description = "The models folder and the limits of the Open Inference Protocol server")
public @interface ServeConfiguration {
    /** The configuration PID. */
    String PID = "io.ortex.serve";
    /** The default time between two scans of the models folder, in milliseconds. */
    long POLL_MS_DEFAULT = 1000;
    /** The default largest request body, in bytes (64 MiB). */
    long MAX_REQUEST_BYTES_DEFAULT = 64L << 20;
    /** The default largest element count of one input tensor (16 Mi elements). */
    long MAX_TENSOR_ELEMENTS_DEFAULT = 16L << 20;
    /** The default gRPC port. */
    int GRPC_PORT_DEFAULT = 8081;
    /** The default gRPC address: loopback only, like the HTTP service's default in the distribution. */
    String GRPC_HOST_DEFAULT = "127.0.0.1";

    /**
     * The models folder; empty for {@code models} in the distribution's folder ({@code ortex.home}), or in the working
     * folder when that is not set.
     *
     * @return the folder
     */
    @AttributeDefinition(name = "models.dir", description = "The models folder: <name>/<version>/model.onnx")
    String models_dir() default "";

    /**
     * The time between two scans of the models folder.
     *
     * @return milliseconds
     */
    @AttributeDefinition(name = "poll.ms", description = "Milliseconds between two scans of the models folder")
    long poll_ms() default POLL_MS_DEFAULT;

    /**
     * The largest request body; larger ones get 413.
     *
     * @return bytes
     */
    @AttributeDefinition(name = "max.request.bytes", description = "The largest request body in bytes")
    long max_request_bytes() default MAX_REQUEST_BYTES_DEFAULT;

    /**
     * The largest element count of one input tensor; larger ones get 413 before anything is allocated.
     *
     * @return elements
     */
    @AttributeDefinition(name = "max.tensor.elements", description = "The largest element count of one input")
    long max_tensor_elements() default MAX_TENSOR_ELEMENTS_DEFAULT;

    /**
     * The port of the gRPC endpoint ({@code inference.GRPCInferenceService}); 0 or less turns it off.
     *
     * @return the port
     */
    @AttributeDefinition(name = "grpc.port", description = "The port of the gRPC endpoint; 0 or less turns it off")
    int grpc_port() default GRPC_PORT_DEFAULT;

    /**
     * The address the gRPC endpoint binds: {@code 127.0.0.1} (loopback only), {@code 0.0.0.0} for every interface.
     *
     * @return a host name or literal address
     */
    @AttributeDefinition(name = "grpc.host", description = "The address the gRPC endpoint binds (0.0.0.0: all)")
    String grpc_host() default GRPC_HOST_DEFAULT;
}
