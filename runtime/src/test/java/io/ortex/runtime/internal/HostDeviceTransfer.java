package io.ortex.runtime.internal;

import io.ortex.api.Tensor;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.TensorAllocator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A test EP's data transfer between host memory and its one device memory, counting the copies each way. It refuses
 * anything else: a copy into the device without the device memory's allocator, a source already in the device memory
 * for a copy into it, and a source that is not a live device block for a copy out of it.
 */
class HostDeviceTransfer implements DataTransfer {
    private final MemoryDevice device;
    private final Predicate<Tensor> isLive;
    final AtomicInteger toDevice = new AtomicInteger();
    final AtomicInteger toHost = new AtomicInteger();

    /**
     * Creates the transfer.
     *
     * @param device the device memory
     * @param isLive tells whether a tensor is a live block of the device memory
     */
    HostDeviceTransfer(MemoryDevice device, Predicate<Tensor> isLive) {
        this.device = device;
        this.isLive = isLive;
    }

    @Override
    public boolean canCopy(MemoryDevice source, MemoryDevice target) {
        return source.equals(MemoryDevice.CPU) && target.equals(device)
                || source.equals(device) && target.equals(MemoryDevice.CPU);
    }

    /** Copies to host memory, which needs no allocator. */
    @Override
    public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target) {
        if (target.equals(device)) {
            throw new IllegalStateException("the runtime must give the device memory's allocator");
        }
        return copy(tensor, source, target, null);
    }

    @Override
    public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator) {
        if (target.equals(device)) {
            if (tensor.isOffHeap()) {
                throw new IllegalStateException("host tensor expected, got " + tensor);
            }
            Tensor t = allocator.allocate(tensor.type(), tensor.shape());
            tensor.copyTo(t.buffer());
            toDevice.incrementAndGet();
            return t;
        }
        checkLive(tensor);
        toHost.incrementAndGet();
        return tensor.toHeap();
    }

    /** Fails unless a tensor is a live block of the device memory. */
    void checkLive(Tensor tensor) {
        if (!isLive.test(tensor)) {
            throw new IllegalStateException("live device tensor expected, got " + tensor);
        }
    }
}
