package io.ortex.api.spi;

import io.ortex.api.Tensor;

/**
 * Copies tensors between host memory and an EP's own memory, the counterpart of ONNX Runtime's
 * {@code OrtDataTransferImpl}. The runtime uses it where a value produced in one memory device is read in another.
 * Thread safe.
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
     *
     * @param tensor the tensor, in {@code source} memory
     * @param source where it is
     * @param target where the copy must be
     * @return the copy, in {@code target} memory
     */
    Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target);
}
