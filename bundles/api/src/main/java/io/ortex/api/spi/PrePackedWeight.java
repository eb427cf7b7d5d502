package io.ortex.api.spi;

import java.util.Objects;

/**
 * A constant weight a registered kernel prepared once in its own form (a packed GEMM panel, a transposed matrix),
 * the buffers of ONNX Runtime's {@code OrtKernelImpl::PrePackWeight} and its shared pre-packed weight cache.
 *
 * <p>Immutable: once handed to the runtime, the buffer is read only, since the session option
 * {@code session.use_env_allocators=1} shares it between the sessions of one environment that run the same kernel on
 * the same weight content. The runtime calls the release action once, when the last kernel using the weight is
 * closed (its last session closes).
 */
public final class PrePackedWeight {
    private final Object buffer;
    private final long bytes;
    private final Runnable release;

    private PrePackedWeight(Object buffer, long bytes, Runnable release) {
        this.buffer = Objects.requireNonNull(buffer, "buffer");
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        this.bytes = bytes;
        this.release = release;
    }

    /**
     * Wraps a packed buffer that needs no release beyond garbage collection.
     * The packed data of ONNX Runtime's {@code OrtKernelImpl::PrePackWeight}, shared through {@code
     * SharedPrePackedWeightCache_StoreWeightData}.
     *
     * @param buffer the packed form, read only from now on
     * @param bytes its size, for diagnostics
     * @return the weight
     */
    public static PrePackedWeight of(Object buffer, long bytes) {
        return new PrePackedWeight(buffer, bytes, null);
    }

    /**
     * Wraps a packed buffer with an action that frees it (off-heap memory, a device buffer).
     * The packed data of ONNX Runtime's {@code OrtKernelImpl::PrePackWeight}, shared through {@code
     * SharedPrePackedWeightCache_StoreWeightData}.
     *
     * @param buffer the packed form, read only from now on
     * @param bytes its size, for diagnostics
     * @param release called once, when no kernel uses the weight any more
     * @return the weight
     */
    public static PrePackedWeight of(Object buffer, long bytes, Runnable release) {
        return new PrePackedWeight(buffer, bytes, Objects.requireNonNull(release, "release"));
    }

    /**
     * Gets the packed form.
     * The packed data of ONNX Runtime's {@code OrtKernelImpl::PrePackWeight}, shared through {@code
     * SharedPrePackedWeightCache_StoreWeightData}.
     *
     * @return the buffer the kernel made
     */
    public Object buffer() {
        return buffer;
    }

    /**
     * Gets the packed form's size.
     * The packed data of ONNX Runtime's {@code OrtKernelImpl::PrePackWeight}, shared through {@code
     * SharedPrePackedWeightCache_StoreWeightData}.
     *
     * @return the bytes
     */
    public long bytes() {
        return bytes;
    }

    /**
     * Frees the buffer; called by the runtime only, once, when no session uses it any more (ONNX Runtime's shared
     * pre-packed weight cache releasing an entry).
     */
    public void release() {
        if (release != null) {
            release.run();
        }
    }

    @Override
    public String toString() {
        return "PrePackedWeight[" + buffer.getClass().getSimpleName() + ", " + bytes + " bytes]";
    }
}
