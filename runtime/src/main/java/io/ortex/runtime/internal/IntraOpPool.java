package io.ortex.runtime.internal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.KernelContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The intra-op threads of a session, offered to kernels as {@link KernelContext#parallelFor}. A fork/join pool, so a
 * kernel running on a pool thread can itself split work without deadlock. With one thread everything runs inline.
 */
final class IntraOpPool implements KernelContext, AutoCloseable {
    private final int threads;
    private final ForkJoinPool pool;

    /** The most threads a fork/join pool accepts. */
    static final int MAX_THREADS = 0x7fff;

    /**
     * Creates the pool.
     *
     * @param requested the thread count, 0 for one per processor
     * @throws InvalidArgumentException when the count is negative or above {@link #MAX_THREADS}
     */
    IntraOpPool(int requested) {
        if (requested < 0 || requested > MAX_THREADS) {
            throw new InvalidArgumentException("intra-op threads must be 0 (one per processor) to " + MAX_THREADS
                    + ", not " + requested);
        }
        this.threads = requested > 0 ? requested : Runtime.getRuntime().availableProcessors();
        this.pool = threads > 1 ? new ForkJoinPool(threads, p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("ortex-intra-op-" + t.getPoolIndex());
            t.setDaemon(true);
            return t;
        }, null, false) : null;
    }

    @Override
    public int intraOpThreads() {
        return threads;
    }

    @Override
    public void parallelFor(int count, int minChunk, RangeBody body) {
        int chunks = Math.min(threads, count / Math.max(1, minChunk));
        if (pool == null || chunks < 2) {
            if (count > 0) {
                body.run(0, count);
            }
            return;
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<RecursiveAction> tasks = new ArrayList<>(chunks);
        for (int c = 0; c < chunks; c++) {
            int from = (int) ((long) count * c / chunks);
            int to = (int) ((long) count * (c + 1) / chunks);
            tasks.add(new RecursiveAction() {
                @Override
                protected void compute() {
                    try {
                        body.run(from, to);
                    } catch (RuntimeException | Error e) {
                        // kept as thrown: fork/join would rethrow a copy whose message is the original's toString
                        failure.compareAndSet(null, e);
                    }
                }
            });
        }
        if (ForkJoinTask.inForkJoinPool() && ForkJoinTask.getPool() == pool) {
            ForkJoinTask.invokeAll(tasks);
        } else {
            pool.invoke(new RecursiveAction() {
                @Override
                protected void compute() {
                    invokeAll(tasks);
                }
            });
        }
        Throwable t = failure.get();
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
