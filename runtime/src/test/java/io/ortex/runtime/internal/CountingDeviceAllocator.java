package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.TensorAllocator;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test EP's allocator of an emulated device memory: it hands out direct blocks outside the Java heap and counts them.
 * A block given back twice or never handed out, and a block asked for after the allocator was released, fail.
 */
final class CountingDeviceAllocator implements TensorAllocator {
    private final MemoryInfo info;
    final AtomicInteger allocated = new AtomicInteger();
    final AtomicInteger freed = new AtomicInteger();
    private final Set<Tensor> live = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    private volatile boolean released;

    CountingDeviceAllocator(MemoryInfo info) {
        this.info = info;
    }

    @Override
    public MemoryInfo memoryInfo() {
        return info;
    }

    @Override
    public Tensor allocate(ElementType type, long... shape) {
        if (released) {
            throw new IllegalStateException(info.name() + ": allocator used after release");
        }
        int bytes = Tensor.checkedElementCount(shape) * Tensor.storageBytes(type);
        Tensor[] self = new Tensor[1];
        self[0] = Tensor.ofBuffer(type, shape, ByteBuffer.allocateDirect(Math.max(bytes, 1)), () -> {
            if (!live.remove(self[0])) {
                throw new IllegalStateException(info.name() + ": a block given back that is not live");
            }
            freed.incrementAndGet();
        });
        live.add(self[0]);
        allocated.incrementAndGet();
        return self[0];
    }

    /** Marks the allocator released by its factory: it allocates no more. */
    void release() {
        released = true;
    }

    /** Tells whether a tensor is a live block of this allocator, or a view of one. */
    boolean holds(Tensor t) {
        synchronized (live) {
            for (Tensor l : live) {
                if (l.isViewOf(t)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How many blocks are handed out and not yet given back. */
    int live() {
        return live.size();
    }
}
