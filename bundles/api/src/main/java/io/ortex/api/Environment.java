package io.ortex.api;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The process-level entry point: the hardware found on this machine, the execution providers available for it,
 * and the factory for sessions. In an OSGi framework the runtime registers one as a service; without a framework
 * an application creates its own with {@link #create()}. All methods are thread safe.
 */
public interface Environment extends AutoCloseable {

    /**
     * Creates an environment with default configuration, using the runtime found on the class or module path.
     *
     * @return a new environment, which the caller must close
     * @throws OrtexException when no Ortex runtime is present
     */
    static Environment create() {
        return create(Map.of());
    }

    /**
     * Creates an environment, using the runtime found on the class or module path.
     *
     * @param config environment configuration entries
     * @return a new environment, which the caller must close
     * @throws OrtexException when no Ortex runtime is present
     */
    static Environment create(Map<String, String> config) {
        Iterator<EnvironmentFactory> it = ServiceLoader.load(EnvironmentFactory.class).iterator();
        if (!it.hasNext()) {
            it = ServiceLoader.load(EnvironmentFactory.class, EnvironmentFactory.class.getClassLoader()).iterator();
        }
        if (!it.hasNext()) {
            throw new OrtexException(ErrorCode.FAIL,
                    "no Ortex runtime found: put io.ortex.runtime on the class path or module path");
        }
        return it.next().create(config);
    }

    /**
     * Gets the hardware devices: those discovered on this machine and those added by configuration.
     *
     * @return the devices, in discovery order
     */
    List<HardwareDevice> hardwareDevices();

    /**
     * Gets the EP devices applications can select, in ONNX Runtime's order.
     *
     * @return a snapshot of the EP devices
     */
    List<EpDevice> epDevices();

    /**
     * Gets the environment configuration.
     *
     * @return the entries this environment was created with
     */
    Map<String, String> config();

    /**
     * Loads a model file and creates a session for it. External data is resolved against the model's folder.
     *
     * @param model the {@code .onnx} file
     * @param options the session options
     * @return the session, which the caller must close
     * @throws InvalidModelException when the model cannot be loaded; the message names the file and the fault
     */
    Session createSession(Path model, SessionOptions options);

    /**
     * Creates a session for a model held in memory.
     *
     * @param model the serialized {@code ModelProto}
     * @param options the session options
     * @return the session, which the caller must close
     */
    Session createSession(byte[] model, SessionOptions options);

    /** Closes the environment and the sessions still open in it. */
    @Override
    void close();
}
