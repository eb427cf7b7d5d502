package io.ortex.runtime.internal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.KernelContext.RangeBody;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Intra-op threads: a fixed set of worker threads that split one {@code parallelFor} at a time with the thread that
 * calls it. A call allocates nothing: the job lives in fields, its generation is published in one atomic word with
 * its chunk count, and each chunk is claimed by turning its stamp from "free in this generation" to "claimed in this
 * generation", so a worker that wakes late, still on a finished job, can never take a chunk of the next one.
 *
 * <p>A job is cut into {@link #CHUNKS_PER_THREAD} chunks per thread. Each thread (the caller first, then the workers
 * in order) has a share of them, the same chunks of every job of the same size, and claims its own before it helps
 * with the others': a thread then tends to work on the part of the data it worked on in the kernel before (the rows
 * of a matrix product it wrote, the panels of weights it read), still in its core's caches, while a thread that runs
 * slower (another process on its core, a worker that woke late) takes fewer chunks instead of holding every other
 * thread up at the end. A job of fewer than twice that many smallest chunks is cut into those, as many of them as
 * make a multiple of the threads.
 *
 * <p>Only one job runs at a time. A call made while the pool is busy (a second session or run sharing the pool, or a
 * kernel calling {@code parallelFor} from inside a chunk) runs inline on its own thread, so nesting never deadlocks.
 * Idle workers spin briefly for the next job (most kernels of a model follow each other within microseconds), then
 * park. Thread safe; {@link #close()} stops the workers.
 */
final class IntraOpPool implements AutoCloseable {
    /** The most threads a pool accepts. */
    static final int MAX_THREADS = 0x7fff;

    /** The most chunks a job is cut into, per thread. */
    static final int CHUNKS_PER_THREAD = 4;

    /** How long an idle worker spins for the next job before it parks, in nanoseconds. */
    private static final long SPIN_NANOS = 50_000;

    private final int threads;
    private final Worker[] workers;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final boolean spin;
    private volatile boolean closed;

    // The current job. Written by the caller before it publishes the chunk count; read by whoever claims a chunk.
    private RangeBody body;
    private int count;
    /** (generation << 32) | chunk count of the current job, published last: a worker waits for a new generation. */
    private final AtomicLong chunks = new AtomicLong();
    private Thread caller;
    /**
     * Per chunk index, {@code 2 * generation} while the chunk of that job is free, {@code 2 * generation + 1} once
     * claimed (a job has fewer than twice the usual number of chunks).
     */
    private final AtomicIntegerArray claimed;
    private final AtomicInteger remaining = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private int generation;

    /**
     * Creates a pool that spins idle workers briefly.
     *
     * @param requested the thread count including the calling thread, 0 for one per processor
     * @throws InvalidArgumentException when the count is negative or above {@link #MAX_THREADS}
     */
    IntraOpPool(int requested) {
        this(requested, true);
    }

    /**
     * Creates a pool.
     *
     * @param requested the thread count including the calling thread, 0 for one per processor
     * @param spin whether idle workers spin briefly before parking (ONNX Runtime's
     *     {@code session.intra_op.allow_spinning})
     * @throws InvalidArgumentException when the count is negative or above {@link #MAX_THREADS}
     */
    IntraOpPool(int requested, boolean spin) {
        if (requested < 0 || requested > MAX_THREADS) {
            throw new InvalidArgumentException("intra-op threads must be 0 (one per processor) to " + MAX_THREADS
                    + ", not " + requested);
        }
        this.threads = requested > 0 ? requested : Runtime.getRuntime().availableProcessors();
        this.spin = spin;
        this.claimed = new AtomicIntegerArray(2 * threads * CHUNKS_PER_THREAD);
        this.workers = new Worker[threads - 1];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker(i);
            workers[i].start();
        }
    }

    /**
     * Gets the thread count, the calling thread included.
     *
     * @return at least 1
     */
    int intraOpThreads() {
        return threads;
    }

    /**
     * Runs {@code body} over {@code [0, count)} in contiguous chunks of at least {@code minChunk} items
     * ({@link #CHUNKS_PER_THREAD} per thread, or as many as fit, in a multiple of the threads, when that is fewer than
     * twice as many), and returns when every chunk is done; the first exception a chunk throws is rethrown as it was
     * thrown.
     *
     * @param count the number of items; nothing runs when it is 0 or less
     * @param minChunk the smallest chunk worth handing to another thread
     * @param body the work
     */
    void parallelFor(int count, int minChunk, RangeBody body) {
        if (count <= 0) {
            return;
        }
        int most = count / Math.max(1, minChunk);
        // Up to twice as many smallest chunks as usual are kept as they are: cut into the usual count they would
        // mix chunks of one and of two items (12 attention heads in 8 chunks), and the thread left with a chunk of
        // two at the end would run alone for a whole item. Their count is rounded down to a multiple of the
        // threads, so that each thread gets as many: three equal chunks on two threads left one thread a third of
        // the job alone.
        int n = most >= 2L * threads * CHUNKS_PER_THREAD ? threads * CHUNKS_PER_THREAD
                : most >= threads ? most - most % threads : most;
        if (Math.min(threads, most) < 2 || closed || !busy.compareAndSet(false, true)) {
            body.run(0, count);
            return;
        }
        try {
            this.body = body;
            this.count = count;
            this.caller = Thread.currentThread();
            failure.set(null);
            remaining.set(n);
            generation++;
            for (int c = 0; c < n; c++) {
                claimed.setPlain(c, 2 * generation); // published by the volatile write below
            }
            chunks.set((long) generation << 32 | n);
            for (Worker w : workers) {
                if (w.parked) {
                    LockSupport.unpark(w);
                }
            }
            runChunks(generation, 0);
            while (remaining.get() != 0) {
                if (!spinUntilDone()) {
                    LockSupport.park(this);
                }
            }
            Throwable t = failure.get();
            if (t instanceof RuntimeException e) {
                throw e;
            }
            if (t instanceof Error e) {
                throw e;
            }
        } finally {
            this.body = null;
            this.caller = null;
            busy.set(false);
        }
    }

    private boolean spinUntilDone() {
        for (int i = 0; i < 20_000; i++) {
            if (remaining.get() == 0) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /**
     * Claims and runs chunks of the job of generation {@code gen} until none is left: first the share of thread
     * {@code self} (0 for the caller, 1 + a worker's index), then, going round from the share after it, the others'.
     */
    private void runChunks(int gen, int self) {
        long job = chunks.get();
        if (generationOf(job) != gen) {
            return;
        }
        int n = (int) job;
        int first = (int) ((long) n * self / threads);
        for (int i = 0; i < n; i++) {
            int c = first + i < n ? first + i : first + i - n;
            // every chunk of a finished job was claimed, and the next job marks its own free with its generation
            if (!claimed.compareAndSet(c, 2 * gen, 2 * gen + 1)) {
                continue;
            }
            int total = count;
            RangeBody work = body;
            Thread waiting = caller;
            try {
                work.run((int) ((long) total * c / n), (int) ((long) total * (c + 1) / n));
            } catch (RuntimeException | Error e) {
                failure.compareAndSet(null, e);
            }
            if (remaining.decrementAndGet() == 0 && waiting != Thread.currentThread()) {
                LockSupport.unpark(waiting);
            }
        }
    }

    /** The generation of a job as {@link #chunks} holds it. */
    private static int generationOf(long job) {
        return (int) (job >>> 32);
    }

    @Override
    public void close() {
        closed = true;
        for (Worker w : workers) {
            LockSupport.unpark(w);
        }
    }

    /** A worker: waits for a job of a new generation, helps with its chunks, and waits again. */
    private final class Worker extends Thread {
        volatile boolean parked;
        /** This worker's share of each job: the caller has the first. */
        private final int self;

        Worker(int index) {
            super("ortex-intra-op-" + index);
            this.self = index + 1;
            setDaemon(true);
        }

        @Override
        public void run() {
            int seen = 0;
            while (!closed) {
                int gen = awaitJob(seen);
                if (gen == seen) {
                    continue;
                }
                seen = gen;
                runChunks(gen, self);
            }
        }

        /** Waits until a job newer than {@code seen} is published or the pool closes; returns its generation. */
        private int awaitJob(int seen) {
            if (spin) {
                long deadline = System.nanoTime() + SPIN_NANOS;
                do {
                    int gen = generationOf(chunks.get());
                    if (gen != seen) {
                        return gen;
                    }
                    Thread.onSpinWait();
                } while (System.nanoTime() < deadline);
            }
            parked = true;
            try {
                int gen = generationOf(chunks.get());
                if (gen != seen || closed) {
                    return gen;
                }
                LockSupport.park(IntraOpPool.this);
                return generationOf(chunks.get());
            } finally {
                parked = false;
            }
        }
    }
}
