package io.ortex.serve.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The server's configuration, ConfigAdmin PID {@value #PID} ({@code conf/io.ortex.serve.cfg} in the distribution).
 * The HTTP port is Felix HTTP's: the framework property {@code org.osgi.service.http.port} or the PID
 * {@code org.apache.felix.http}.
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
}
