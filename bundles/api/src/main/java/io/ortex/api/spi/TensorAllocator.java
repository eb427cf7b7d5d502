package io.ortex.api.spi;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;

/**
 * Hands out tensors in one memory, the counterpart of ONNX Runtime's {@code OrtAllocator} ({@code Alloc} and
 * {@code Free}, with the tensor made over the block as {@code CreateTensorWithDataAsOrtValue} does). An EP factory
 * creates one per memory it declares ({@link EpMemory#createAllocator}); the environment keeps it and shares it
 * across every session that uses the memory, as ONNX Runtime's environment-level shared allocators, and gives it back
 * with {@link EpMemory#releaseAllocator} when the environment closes or the EP library is removed.
 *
 * <p>Ownership: each tensor {@link #allocate} returns belongs to the caller until it is closed
 * ({@link Tensor#close()}), which gives its memory back to this allocator. The runtime closes every tensor it holds in
 * an EP's memory when its last reader has run, when it was copied to host for the caller, or when the session that
 * holds it (a copied initializer) closes. Thread safe.
 */
public interface TensorAllocator {
    /**
     * Gets the memory this allocator serves ({@code OrtAllocator::Info}).
     *
     * @return the memory
     */
    MemoryInfo memoryInfo();

    /**
     * Allocates a tensor in this memory ({@code OrtAllocator::Alloc}); its contents are unspecified until written.
     *
     * @param type the element type, any supported type but string
     * @param shape the dimensions
     * @return the tensor, owned by the caller; closing it frees the memory ({@code OrtAllocator::Free})
     */
    Tensor allocate(ElementType type, long... shape);
}
