package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpMemory;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.TensorAllocator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The environment's allocators of EP memories, ONNX Runtime's environment-level shared allocators: one per factory
 * and declared memory ({@link EpMemory#memoryInfos()}), created by the factory the first time a session needs it and
 * shared by every later session, given back to the factory ({@link EpMemory#releaseAllocator}) when the environment
 * closes or the factory is released. Thread safe.
 */
final class SharedAllocators {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.session");

    private record Key(EpFactory factory, MemoryInfo memory) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.factory == factory && k.memory.equals(memory);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(factory) * 31 + memory.hashCode();
        }
    }

    private final Map<Key, TensorAllocator> allocators = new LinkedHashMap<>();

    /**
     * Gets the shared allocator of one of a factory's memories, creating it on first use.
     *
     * @param factory the factory, which implements {@link EpMemory}
     * @param memory one of its declared memories
     * @return the allocator
     * @throws OrtexException when the factory creates none, or one for another memory
     */
    synchronized TensorAllocator get(EpFactory factory, MemoryInfo memory) {
        Key key = new Key(factory, memory);
        TensorAllocator a = allocators.get(key);
        if (a == null) {
            a = ((EpMemory) factory).createAllocator(memory);
            if (a == null || !memory.equals(a.memoryInfo())) {
                throw new OrtexException(ErrorCode.FAIL, "EP factory " + factory.name() + " created "
                        + (a == null ? "no allocator" : "an allocator for " + a.memoryInfo()) + " for memory "
                        + memory);
            }
            allocators.put(key, a);
            LOG.debug("EP factory {}: shared allocator for {} created", factory.name(), memory);
        }
        return a;
    }

    /**
     * Gives a factory's allocators back to it, before the factory itself is released.
     *
     * @param factory the factory
     */
    void release(EpFactory factory) {
        List<Map.Entry<Key, TensorAllocator>> mine = new ArrayList<>();
        synchronized (this) {
            var it = allocators.entrySet().iterator();
            while (it.hasNext()) {
                var e = it.next();
                if (e.getKey().factory == factory) {
                    mine.add(e);
                    it.remove();
                }
            }
        }
        giveBack(mine);
    }

    /** Gives every allocator back to its factory, when the environment closes. */
    void releaseAll() {
        List<Map.Entry<Key, TensorAllocator>> all;
        synchronized (this) {
            all = new ArrayList<>(allocators.entrySet());
            allocators.clear();
        }
        giveBack(all);
    }

    private static void giveBack(List<Map.Entry<Key, TensorAllocator>> entries) {
        for (Map.Entry<Key, TensorAllocator> e : entries) {
            try {
                ((EpMemory) e.getKey().factory).releaseAllocator(e.getValue());
            } catch (RuntimeException ex) {
                LOG.warn("EP factory {}: releasing the allocator of {} failed", e.getKey().factory.name(),
                        e.getKey().memory, ex);
            }
        }
    }
}
