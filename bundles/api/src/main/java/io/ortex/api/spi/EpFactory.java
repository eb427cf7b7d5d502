package io.ortex.api.spi;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.HardwareDevice;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The entry point of an execution-provider library, the counterpart of ONNX Runtime's {@code OrtEpFactory}.
 *
 * <p>A library publishes its factories as OSGi services or through {@link java.util.ServiceLoader}. The runtime
 * asks each factory which of the machine's hardware devices it supports, and later creates an
 * {@link ExecutionProvider} per session with {@link #createEp}. Every method may be called from any thread; the
 * runtime never calls a factory again after it released it.
 */
public interface EpFactory {
    /**
     * Session configuration entry the runtime adds to what {@link #createEp} receives: the session's intra-op thread
     * count, resolved (at least 1), for EPs that run their own thread pools. Added in package version 0.3.0.
     */
    String SESSION_INTRA_OP_THREADS = "ortex.session.intra_op_threads";

    /**
     * Gets the EP name, which becomes the {@code epName} of its EP devices, such as {@code CPUExecutionProvider}.
     *
     * @return the name, unique among the factories of an environment
     */
    String name();

    /**
     * Gets the vendor name of the EP.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::GetVendor}.
     *
     * @return the vendor
     */
    String vendor();

    /**
     * Gets the PCI vendor id of the EP's owner, used to order devices whose vendor matches the EP's.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::GetVendorId}.
     *
     * @return the vendor id, 0 when none
     */
    int vendorId();

    /**
     * Gets the EP version, which must be a SemVer 2.0 string; it becomes the EP devices' {@code version} metadata.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::GetVersion}.
     *
     * @return the version, such as {@code 1.0.0}
     */
    String version();

    /**
     * Tells which of the given devices this EP can use.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::GetSupportedDevices}.
     *
     * @param hardware the hardware devices of the environment
     * @param environmentConfig the environment configuration (for example {@code allow_virtual_devices})
     * @return one entry per device it supports, in the order it prefers; empty when none
     */
    List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> environmentConfig);

    /**
     * Creates an EP instance for one session.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::CreateEp}.
     *
     * @param devices the devices selected for it, from its own {@link #supportedDevices} answer
     * @param sessionConfig the session's configuration entries, EP options included as {@code ep.<name>.<key>}, and
     *     {@link #SESSION_INTRA_OP_THREADS}
     * @return the new EP
     */
    ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig);

    /**
     * Releases an EP this factory created, when the session that owns it closes.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::ReleaseEp}.
     *
     * @param ep the EP
     */
    void releaseEp(ExecutionProvider ep);

    /**
     * Judges whether a model this EP compiled earlier suits the given devices, from the compatibility string the EP
     * wrote into the model ({@link ExecutionProvider#compatibilityInfo}). Default: {@code NOT_APPLICABLE}.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::ValidateCompiledModelCompatibilityInfo}.
     *
     * @param devices the hardware devices the model would run on
     * @param compatibilityInfo the string stored in the model's metadata
     * @return the verdict
     */
    default CompiledModelCompatibility validateCompiledModelCompatibility(List<HardwareDevice> devices,
                                                                         String compatibilityInfo) {
        return CompiledModelCompatibility.NOT_APPLICABLE;
    }

    /**
     * Explains why this EP cannot use a device. Default: compatible.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::GetHardwareDeviceIncompatibilityDetails}.
     *
     * @param device the hardware device
     * @return the details
     */
    default DeviceIncompatibility deviceIncompatibility(HardwareDevice device) {
        return DeviceIncompatibility.COMPATIBLE;
    }

    /**
     * Gets the data transfer between host memory and this EP's memory, for EPs whose
     * {@link ExecutionProvider#memoryDevice()} is not host memory. Default: none.
     * Mirrors ONNX Runtime's {@code OrtEpFactory::CreateDataTransfer}.
     *
     * @return the data transfer, or empty
     */
    default Optional<DataTransfer> dataTransfer() {
        return Optional.empty();
    }

    /**
     * Tells whether the EPs of this factory queue their device work on streams, the counterpart of
     * {@code OrtEpFactory::IsStreamAware}. When true, the runtime creates a {@link SyncStream} per session for the
     * non-CPU {@link ExecutionProvider#memoryDevice()} of each of its EPs ({@link ExecutionProvider#createSyncStream},
     * falling back to {@link #createSyncStream}), hands it to their kernels and data transfers, and synchronizes
     * readers on other streams or the host through {@link SyncNotification}s. Default: false, and the runtime makes
     * no stream call at all. Added in package version 0.7.0.
     *
     * @return true for a stream-aware factory
     */
    default boolean isStreamAware() {
        return false;
    }

    /**
     * Creates a stream for one of this factory's memory devices, the counterpart of
     * {@code OrtEpFactory::CreateSyncStreamForDevice}: the runtime calls it for a session whose EP created none
     * itself, and may call it outside sessions. Only called when {@link #isStreamAware()}. Default: none.
     *
     * @param device a non-CPU memory device of this factory's EPs
     * @param options the stream's options (for a session's stream, the session's configuration entries)
     * @return the stream, or empty when this factory creates none for that device
     */
    default Optional<SyncStream> createSyncStream(MemoryDevice device, Map<String, String> options) {
        return Optional.empty();
    }
}
