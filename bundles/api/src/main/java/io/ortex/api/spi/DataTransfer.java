package io.ortex.api.spi;

import io.ortex.api.Tensor;

/**
 * Copies tensors between host memory and an EP's own memory, the counterpart of ONNX Runtime's
 * {@code OrtDataTransferImpl}, which a factory provides through {@link EpFactory#dataTransfer()}
 * ({@code OrtEpFactory::CreateDataTransfer}). The runtime uses it where a value produced in one memory device is read
 * in another. The copy is new: the transfer never closes or changes the tensor it copies (the runtime closes it when
 * its last reader has run). Thread safe.
 */
public interface DataTransfer {
    /**
     * Tells whether this transfer copies between two memory devices.
     *
     * @param source where the tensor is
     * @param target where it must go
     * @return true when {@link #copy} handles the pair
     */
    boolean canCopy(MemoryDevice source, MemoryDevice target);

    /**
     * Copies a tensor.
     * Mirrors ONNX Runtime's {@code OrtDataTransferImpl::CopyTensors}.
     *
     * @param tensor the tensor, in {@code source} memory
     * @param source where it is
     * @param target where the copy must be
     * @return the copy, in {@code target} memory
     */
    Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target);

    /**
     * Copies a tensor into memory that the given allocator serves, the counterpart of
     * {@code OrtDataTransferImpl::CopyTensors} (whose destination tensors ONNX Runtime allocates first from the
     * target memory's shared allocator). The runtime calls this form when the target memory has an allocator (an EP
     * memory declared through {@link EpMemory}); the default ignores the allocator and calls {@link #copy(Tensor,
     * MemoryDevice, MemoryDevice)}. Added in package version 0.6.0.
     *
     * @param tensor the tensor, in {@code source} memory
     * @param source where it is
     * @param target where the copy must be
     * @param allocator the shared allocator of the target memory, for the copy
     * @return the copy, in {@code target} memory
     */
    default Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator) {
        return copy(tensor, source, target);
    }

    /**
     * Copies a tensor as part of a stream's work, the counterpart of {@code OrtDataTransferImpl::CopyTensors} with its
     * {@code streams} argument. The runtime calls this form for every copy of a session with streams: {@code stream}
     * is the stream of the device copied to, or else of the device copied from, and {@code null} when neither has one.
     * The copy may complete later in the stream's order (the runtime makes readers wait through a
     * {@link SyncNotification}), but a source in host memory must have been read by the time this returns, since the
     * runtime may reuse that memory at once. The default copies at once, ignoring the stream: through
     * {@link #copy(Tensor, MemoryDevice, MemoryDevice, TensorAllocator)} when there is an allocator, else through
     * {@link #copy(Tensor, MemoryDevice, MemoryDevice)}. Added in package version 0.7.0.
     * Mirrors ONNX Runtime's {@code OrtDataTransferImpl::CopyTensors}.
     *
     * @param tensor the tensor, in {@code source} memory
     * @param source where it is
     * @param target where the copy must be
     * @param allocator the shared allocator of the target memory, or {@code null} when it has none (host memory)
     * @param stream the stream the copy belongs to, or {@code null}
     * @return the copy, in {@code target} memory
     */
    default Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator,
                        SyncStream stream) {
        return allocator == null ? copy(tensor, source, target) : copy(tensor, source, target, allocator);
    }
}
