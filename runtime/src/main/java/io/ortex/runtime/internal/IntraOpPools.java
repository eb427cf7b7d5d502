package io.ortex.runtime.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * The intra-op thread pools of an environment, shared by its sessions: one pool per thread count and spinning
 * choice, made when a session first asks for it and stopped when the environment closes. Sharing keeps the thread
 * count of a process bounded however many sessions it opens. Thread safe.
 */
final class IntraOpPools implements AutoCloseable {
    private final Map<Long, IntraOpPool> pools = new HashMap<>();
    private boolean closed;

    /**
     * Gets the pool for a thread count.
     *
     * @param threads the threads, 0 for one per processor
     * @param spin whether idle threads spin before they sleep
     * @return the shared pool
     * @throws io.ortex.api.InvalidArgumentException when the thread count is out of range
     * @throws IllegalStateException when the environment is closed
     */
    synchronized IntraOpPool get(int threads, boolean spin) {
        if (closed) {
            throw new IllegalStateException("the environment is closed");
        }
        int n = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        long key = ((long) n << 1) | (spin ? 1 : 0);
        IntraOpPool pool = pools.get(key);
        if (pool == null) {
            pool = new IntraOpPool(threads, spin);
            pools.put(key, pool);
        }
        return pool;
    }

    @Override
    public synchronized void close() {
        closed = true;
        pools.values().forEach(IntraOpPool::close);
        pools.clear();
    }
}
