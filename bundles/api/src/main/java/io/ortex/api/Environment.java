package io.ortex.api;

import java.nio.file.Path;
import java.time.Duration;
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
     * Environment configuration key: {@code "1"} lets EP factories offer virtual devices ({@code is_virtual=1}) for
     * cross-compilation (ONNX Runtime's key). Default {@code "0"}.
     */
    String ALLOW_VIRTUAL_DEVICES = "allow_virtual_devices";

    /** A registration name ending in this lets that library's factories offer virtual devices. */
    String VIRTUAL_SUFFIX = ".virtual";

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
     * Gets the EP libraries with their state and the sessions holding them, for tools: unlike {@link #epDevices()}
     * this also lists the libraries whose removal waits for sessions to close ({@link EpLibraryInfo.State#DRAINING}).
     * Added in package version 0.2.0; the default, for environments that do not track libraries, lists none.
     *
     * @return a snapshot, in registration order
     */
    default List<EpLibraryInfo> epLibraries() {
        return List.of();
    }

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

    /**
     * Registers an EP library from a jar, loaded in its own class loader; its {@link io.ortex.api.spi.EpFactory}
     * providers ({@code META-INF/services} or {@code provides}) are asked for their devices at once. A name ending
     * in {@link #VIRTUAL_SUFFIX} lets its factories offer virtual devices. A file that is not a jar goes to the
     * {@link io.ortex.api.spi.EpLibraryLoader}s present (since package version 0.3 of the SPI), such as the ONNX
     * Runtime EP's loader of native ONNX Runtime plugin-EP libraries ({@code .so}).
     *
     * @param name the registration name, unique in this environment
     * @param jar the jar file, or a library file a loader takes
     * @throws InvalidArgumentException when the name is taken, the file is missing, the jar has no EP factory, or no
     *     loader takes the file or the loader refuses it
     */
    void registerLibrary(String name, Path jar);

    /**
     * Unregisters an EP library at once, when no session holds any of its EPs; its factories are released and its
     * class loader can be collected.
     *
     * @param name the registration name
     * @throws InvalidArgumentException when no library has that name
     * @throws EpInUseException when sessions hold its EPs; the exception lists them and the library stays
     */
    void unregisterLibrary(String name);

    /**
     * Unregisters an EP library, waiting for the sessions that hold its EPs to close. Its EP devices are withdrawn
     * from selection at once; the sessions that set {@link SessionOptions#MIGRATE_ON_EP_REMOVAL} are moved onto the
     * remaining EPs rather than waited for. At the timeout the library is restored and the call fails.
     *
     * @param name the registration name
     * @param timeout how long to wait for sessions to close
     * @throws EpInUseException when sessions still hold its EPs at the timeout
     */
    void unregisterLibrary(String name, Duration timeout);

    /**
     * Asks an EP's factory whether it can use a hardware device.
     *
     * @param epName the EP name
     * @param device the hardware device
     * @return the details; {@link DeviceIncompatibility#COMPATIBLE} when the factory says nothing
     * @throws InvalidArgumentException when no EP has that name
     */
    DeviceIncompatibility deviceIncompatibility(String epName, HardwareDevice device);

    /**
     * Creates a compiler of models for the EPs the given options select (explicit EP devices, policy or delegate,
     * configuration entries), the compile API. The options are copied.
     *
     * @param options the session options that select the EPs and carry configuration
     * @return a new compiler
     */
    ModelCompiler modelCompiler(SessionOptions options);

    /**
     * Asks, without creating a session, how well a compiled model suits EP devices: for each EP of the given devices
     * whose compatibility string the model stores ({@code ep_compatibility_info.<EP>} metadata), that EP's factory
     * judges it for those devices ({@link io.ortex.api.spi.EpFactory#validateCompiledModelCompatibility}).
     *
     * @param model the compiled model's file
     * @param devices the EP devices the model would run on, at least one
     * @return the verdict per EP name, for the EPs of {@code devices} the model names; an EP whose factory has no
     *     validator answers {@link CompiledModelCompatibility#NOT_APPLICABLE}
     * @throws InvalidArgumentException when no device is given
     * @throws InvalidModelException when the model cannot be read
     */
    Map<String, CompiledModelCompatibility> compiledModelCompatibility(Path model, List<EpDevice> devices);

    /**
     * Adds a listener for EP devices arriving and leaving.
     *
     * @param listener the listener
     */
    void addEpDeviceListener(EpDeviceListener listener);

    /**
     * Removes a listener.
     *
     * @param listener the listener
     */
    void removeEpDeviceListener(EpDeviceListener listener);

    /** Closes the environment and the sessions still open in it. */
    @Override
    void close();
}
