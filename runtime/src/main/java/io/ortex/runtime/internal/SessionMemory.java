package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpMemory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The memories one session works in: for each EP memory device its name and the environment's shared allocators of
 * it (device memory for the runs' copies and the kernels' outputs, read-only memory for initializers), and the
 * initializers copied into EP memory at session creation, which it closes with the session. Host memory needs no
 * entry. Thread safe once built.
 */
final class SessionMemory implements AutoCloseable {
    private final Map<MemoryDevice, ExecutionPlan.Memory> memories;
    private final List<Tensor> constants = new ArrayList<>();
    private final SharedAllocators own;
    private final SessionStreams streams;

    private SessionMemory(Map<MemoryDevice, ExecutionPlan.Memory> memories, SharedAllocators own,
                          SessionStreams streams) {
        this.memories = memories;
        this.own = own;
        this.streams = streams;
    }

    /**
     * Finds the memories of a session's EPs: for each EP whose factory declares memories ({@link EpMemory}), the
     * declared memory of its {@link ExecutionProvider#memoryDevice()} and, on the same device, a read-only one.
     *
     * @param eps the session's EPs
     * @param shared the environment's allocators, or {@code null} to use allocators of this session's own, given
     *     back when it closes
     * @param sessionConfig the session's configuration, the options of streams its EPs' factories create
     * @return the session's memories, with the streams of its stream-aware EPs
     * @throws OrtexException when an EP works in a memory its factory does not declare, or a stream-aware EP gets no
     *     stream
     */
    static SessionMemory of(List<EpInstance> eps, SharedAllocators shared, Map<String, String> sessionConfig) {
        SharedAllocators own = shared == null ? new SharedAllocators() : null;
        SharedAllocators allocators = shared == null ? own : shared;
        Map<MemoryDevice, ExecutionPlan.Memory> memories = new LinkedHashMap<>();
        try {
            for (EpInstance inst : eps) {
                EpFactory factory = inst.binding().factory();
                MemoryDevice device = inst.ep().memoryDevice();
                if (!(factory instanceof EpMemory declared) || device == null || device.equals(MemoryDevice.CPU)
                        || memories.containsKey(device)) {
                    continue;
                }
                List<MemoryInfo> infos = declared.memoryInfos();
                MemoryInfo main = find(infos, device, MemoryInfo.Kind.DEVICE);
                if (main == null) {
                    throw new OrtexException(ErrorCode.FAIL, "EP " + inst.ep().name() + " works in memory " + device
                            + ", but its factory " + factory.name() + " declares no device memory there (it declares "
                            + infos + ")");
                }
                MemoryInfo readOnly = find(infos, device, MemoryInfo.Kind.READ_ONLY);
                memories.put(device, new ExecutionPlan.Memory(main.name(), device, allocators.get(factory, main),
                        readOnly == null ? null : allocators.get(factory, readOnly)));
            }
        } catch (RuntimeException e) {
            if (own != null) {
                own.releaseAll();
            }
            throw e;
        }
        SessionStreams streams;
        try {
            streams = SessionStreams.of(eps, sessionConfig);
        } catch (RuntimeException e) {
            if (own != null) {
                own.releaseAll();
            }
            throw e;
        }
        return new SessionMemory(Map.copyOf(memories), own, streams);
    }

    private static MemoryInfo find(List<MemoryInfo> infos, MemoryDevice device, MemoryInfo.Kind kind) {
        for (MemoryInfo m : infos == null ? List.<MemoryInfo>of() : infos) {
            if (m.device().equals(device) && m.kind() == kind) {
                return m;
            }
        }
        return null;
    }

    /**
     * Describes a memory device for the plan: its declared name and allocators, or host memory, or a memory no
     * factory declares (an EP that copies through its data transfer alone).
     *
     * @param device the device
     * @return the memory
     */
    ExecutionPlan.Memory describe(MemoryDevice device) {
        if (device.equals(MemoryDevice.CPU)) {
            return ExecutionPlan.Memory.CPU;
        }
        ExecutionPlan.Memory m = memories.get(device);
        return m != null ? m : new ExecutionPlan.Memory(device.toString(), device, null, null);
    }

    /**
     * Gets the allocator of a device's memory, for kernels ({@link io.ortex.api.spi.KernelContext#allocator}).
     *
     * @param device the device
     * @return its device allocator, or empty
     */
    Optional<TensorAllocator> allocator(MemoryDevice device) {
        ExecutionPlan.Memory m = device == null ? null : memories.get(device);
        return m == null ? Optional.empty() : Optional.ofNullable(m.allocator());
    }

    /**
     * Gets the session's stream of a memory device.
     *
     * @param device the device
     * @return its stream, or {@code null}
     */
    SyncStream stream(MemoryDevice device) {
        return streams.stream(device);
    }

    /**
     * Gets the session's streams.
     *
     * @return the streams, empty when no EP of the session is stream aware
     */
    SessionStreams streams() {
        return streams;
    }

    /**
     * Keeps an initializer copied into EP memory until the session is released.
     *
     * @param t the copy
     */
    synchronized void holdConstant(Tensor t) {
        constants.add(t);
    }

    /**
     * Waits for and releases the session's streams, then closes the initializers copied into EP memory and gives back
     * allocators of the session's own.
     */
    @Override
    public synchronized void close() {
        streams.close();
        for (Tensor t : constants) {
            t.close();
        }
        constants.clear();
        if (own != null) {
            own.releaseAll();
        }
    }
}
