package io.ortex.runtime.internal;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpMemory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.TensorAllocator;
import io.ortex.ep.cpu.CpuEpFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the runtime's test EP factories with a device memory of their own share: their identity (vendor "tests",
 * version 1.0.0), the hardware they take (every device of one type, or one device of it), and counting allocators of
 * direct blocks, one per memory the environment asks for, which tell whether a tensor is a live block of this factory.
 */
abstract class DeviceTestEpFactory implements EpFactory, EpMemory {
    /** The EP name, which subclasses use in their messages. */
    final String name;
    private final int vendorId;
    private final HardwareDeviceType type;
    private final int deviceId;
    final List<CountingDeviceAllocator> allocators = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger allocatorsReleased = new AtomicInteger();

    /**
     * Creates the factory.
     *
     * @param name the EP name
     * @param vendorId the vendor id of the factory and its devices
     * @param type the hardware it takes
     * @param deviceId the one device id of that type it takes, or -1 for all
     */
    DeviceTestEpFactory(String name, int vendorId, HardwareDeviceType type, int deviceId) {
        this.name = name;
        this.vendorId = vendorId;
        this.type = type;
        this.deviceId = deviceId;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String vendor() {
        return "tests";
    }

    @Override
    public int vendorId() {
        return vendorId;
    }

    @Override
    public String version() {
        return "1.0.0";
    }

    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
        return hardware.stream().filter(d -> d.type() == type && (deviceId < 0 || d.deviceId() == deviceId))
                .map(d -> new SupportedDevice(d, Map.of(), Map.of())).toList();
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
    }

    @Override
    public TensorAllocator createAllocator(MemoryInfo memory) {
        CountingDeviceAllocator a = new CountingDeviceAllocator(memory);
        allocators.add(a);
        return a;
    }

    @Override
    public void releaseAllocator(TensorAllocator allocator) {
        ((CountingDeviceAllocator) allocator).release();
        allocatorsReleased.incrementAndGet();
    }

    /** The allocator the environment created for a memory, or {@code null} before it did. */
    CountingDeviceAllocator allocator(MemoryInfo memory) {
        synchronized (allocators) {
            return allocators.stream().filter(a -> a.memoryInfo().equals(memory)).findFirst().orElse(null);
        }
    }

    /** How many blocks of all this factory's allocators are live. */
    int liveBlocks() {
        synchronized (allocators) {
            return allocators.stream().mapToInt(CountingDeviceAllocator::live).sum();
        }
    }

    /** Tells whether a tensor is a live block (or a view of one) of one of this factory's allocators. */
    boolean isLive(Tensor t) {
        synchronized (allocators) {
            for (CountingDeviceAllocator a : allocators) {
                if (a.holds(t)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * An environment with the CPU EP and the given test factories, on the machine's CPU and the given devices.
     *
     * @param devices the devices besides the CPU
     * @param factories the test factories
     * @return the environment
     */
    static RuntimeEnvironment environment(List<HardwareDevice> devices, EpFactory... factories) {
        List<HardwareDevice> hardware = new ArrayList<>(devices);
        hardware.add(TestDevices.CPU);
        List<EpFactory> all = new ArrayList<>();
        all.add(new CpuEpFactory());
        all.addAll(List.of(factories));
        return new RuntimeEnvironment(Map.of(), hardware, all);
    }

    /**
     * What the CPU EP alone computes for a model: the reference a device EP's session is compared with.
     *
     * @param model the model
     * @param feeds the inputs
     * @return the outputs
     */
    static Map<String, Tensor> onCpuAlone(byte[] model, Map<String, Tensor> feeds) {
        try (RuntimeEnvironment env = environment(List.of());
             Session s = env.createSession(model, new SessionOptions())) {
            return s.run(feeds);
        }
    }
}
