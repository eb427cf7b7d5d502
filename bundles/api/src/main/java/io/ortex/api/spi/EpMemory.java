package io.ortex.api.spi;

import java.util.List;

/**
 * The memory side of an EP factory whose EP keeps tensors in memory of its own, implemented by the same object as
 * its {@link EpFactory}: which memories its devices offer, their allocators, and (through
 * {@link EpFactory#dataTransfer()}, ONNX Runtime's {@code OrtEpFactory::CreateDataTransfer}) the copies between them
 * and host memory. A factory that does not implement it works in host memory, as before.
 *
 * <p>The runtime asks for each declared memory's allocator once per environment and shares it across sessions; it
 * gives a session's EP inputs in the EP's {@link ExecutionProvider#memoryDevice()}, copies initializers the EP reads
 * into its {@link MemoryInfo.Kind#READ_ONLY} memory (or its device memory when it declares no read-only one) once at
 * session creation, and lets kernels allocate their outputs there through {@link KernelContext#allocator}. The
 * runtime owns what a kernel returns in that memory and closes it after its last reader, so a kernel returns new
 * tensors, never one of its inputs. Every method may be called from any thread.
 */
public interface EpMemory {
    /**
     * Lists the memories the EP's devices offer, as ONNX Runtime's factory declares them with
     * {@code OrtEpDevice_AddAllocatorInfo}: at least the device memory ({@link MemoryInfo.Kind#DEVICE} on the EP's
     * {@link ExecutionProvider#memoryDevice()}), optionally host-accessible memory and a read-only memory for
     * initializers.
     *
     * @return the memories, each name unique
     */
    List<MemoryInfo> memoryInfos();

    /**
     * Creates an allocator for one of the declared memories, the counterpart of
     * {@code OrtEpFactory::CreateAllocator}; the environment shares it across sessions.
     *
     * @param memory one of {@link #memoryInfos()}
     * @return the allocator
     */
    TensorAllocator createAllocator(MemoryInfo memory);

    /**
     * Takes back an allocator from {@link #createAllocator}, the counterpart of {@code OrtEpFactory::ReleaseAllocator},
     * once no session uses it.
     *
     * @param allocator the allocator
     */
    void releaseAllocator(TensorAllocator allocator);
}
