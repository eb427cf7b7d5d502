package io.ortex.api.spi;

import java.util.Objects;

/**
 * One memory an EP device offers and the kind of allocator that serves it, the counterpart of ONNX Runtime's
 * {@code OrtMemoryInfo} as an EP factory adds it with {@code OrtEpDevice_AddAllocatorInfo}: the device's own memory
 * ({@link Kind#DEVICE}, ONNX Runtime's {@code OrtDeviceAllocator} on an {@code OrtDeviceMemoryType_DEFAULT} memory),
 * host-accessible memory (a {@link Kind#DEVICE} allocator on a memory whose {@link MemoryDevice#memoryType()} is
 * {@code HOST_ACCESSIBLE}), and a read-only allocator for initializers ({@link Kind#READ_ONLY}, ONNX Runtime's
 * {@code OrtReadOnlyAllocator}). Immutable.
 *
 * @param name the memory's name, unique among the factory's memories, shown where copies are reported
 *     ({@code ortex run --json})
 * @param device the memory device
 * @param kind the allocator kind
 */
public record MemoryInfo(String name, MemoryDevice device, Kind kind) {
    /** Ordinary host memory, where the CPU EP works. */
    public static final MemoryInfo CPU = new MemoryInfo("Cpu", MemoryDevice.CPU, Kind.DEVICE);

    /** The kind of allocator, ONNX Runtime's {@code OrtAllocatorType} for plugin EPs. */
    public enum Kind {
        /** Memory for the values kernels read and write during runs ({@code OrtDeviceAllocator}). */
        DEVICE,
        /** Memory for initializers, written once at session creation ({@code OrtReadOnlyAllocator}). */
        READ_ONLY
    }

    /**
     * Creates a memory description.
     *
     * @param name the memory's name, not blank
     * @param device the memory device
     * @param kind the allocator kind
     */
    public MemoryInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(kind, "kind");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a memory needs a name");
        }
    }

    /** Gives the name, the device and the kind. */
    @Override
    public String toString() {
        return name + " (" + device.type() + " " + device.memoryType()
                + (kind == Kind.READ_ONLY ? ", read-only)" : ")");
    }
}
