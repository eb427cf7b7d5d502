package io.ortex.api.spi;

import io.ortex.api.HardwareDeviceType;
import java.util.Objects;

/**
 * Where an EP keeps the tensors its kernels read and write, the counterpart of ONNX Runtime's
 * {@code OrtMemoryDevice}. Tensors crossing between EPs with different memory devices are copied by a
 * {@link DataTransfer}.
 *
 * @param type the kind of device owning the memory
 * @param memoryType {@code DEFAULT} (device memory) or {@code HOST_ACCESSIBLE}
 * @param vendorId the device's vendor id, 0 for generic
 * @param deviceId the device's id
 */
public record MemoryDevice(HardwareDeviceType type, MemoryType memoryType, int vendorId, int deviceId) {
    /** Ordinary host memory, where the CPU EP and most EPs work. */
    public static final MemoryDevice CPU = new MemoryDevice(HardwareDeviceType.CPU, MemoryType.DEFAULT, 0, 0);

    /** The kind of memory on a device. */
    public enum MemoryType {
        /** The device's own memory. */
        DEFAULT,
        /** Memory the host can read and write directly (pinned or shared). */
        HOST_ACCESSIBLE
    }

    /**
     * Creates a memory device.
     *
     * @param type the kind of device
     * @param memoryType the kind of memory
     * @param vendorId the vendor id
     * @param deviceId the device id
     */
    public MemoryDevice {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(memoryType, "memoryType");
    }

    /**
     * Tells whether the CPU can use this memory directly.
     * Mirrors ONNX Runtime's {@code MemoryDevice_GetDeviceType} compared with CPU.
     *
     * @return true for CPU memory and host-accessible memory
     */
    public boolean usesCpuMemory() {
        return type == HardwareDeviceType.CPU || memoryType == MemoryType.HOST_ACCESSIBLE;
    }
}
