package io.ortex.ep.example;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.SyncNotification;
import io.ortex.api.spi.SyncStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stream of the emulated NPU ({@code OrtSyncStreamImpl}): one thread of its own that runs the work queued on it in
 * order, as a device runs its command queue. Its {@link #handle()} is the {@link Executor} that the EP's kernels and
 * data transfer queue their work on; work queued there has not run when the call that queued it returns, so what it
 * writes is there only for readers that waited on a {@link Notification}. Work that fails is reported by the next
 * wait on the host. Thread safe.
 */
final class NpuStream implements SyncStream {
    private static final AtomicInteger NUMBER = new AtomicInteger();

    private final ExecutorService thread;
    private final long delayMillis;
    private final Runnable onClose;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong queued = new AtomicLong();
    private final Executor queue = this::enqueue;
    private boolean closed;

    /**
     * Starts a stream.
     *
     * @param delayMillis how long each piece of compute work waits before it runs, emulating a slower device (EP
     *     option {@code stream_delay_ms}, 0 by default)
     * @param onClose called once, when the stream is released
     */
    NpuStream(long delayMillis, Runnable onClose) {
        this.delayMillis = delayMillis;
        this.onClose = onClose;
        String name = "ortex-example-npu-stream-" + NUMBER.incrementAndGet();
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** The queue of this stream, an {@link Executor} that runs work on the stream's thread in order. */
    @Override
    public Object handle() {
        return queue;
    }

    @Override
    public SyncNotification createNotification() {
        return new Notification(this);
    }

    /**
     * Queues compute work, delayed as the stream's option says.
     *
     * @param work the work
     */
    void compute(Runnable work) {
        enqueue(() -> {
            if (delayMillis > 0) {
                try {
                    Thread.sleep(delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            work.run();
        });
    }

    private void enqueue(Runnable work) {
        queued.incrementAndGet();
        thread.execute(() -> {
            try {
                work.run();
            } catch (RuntimeException | Error e) {
                failure.compareAndSet(null, e);
            }
        });
    }

    /**
     * Gets how many pieces of work were queued on the stream.
     *
     * @return the count
     */
    long queued() {
        return queued.get();
    }

    private void throwFailure() {
        Throwable f = failure.getAndSet(null);
        if (f != null) {
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, ExampleEpFactory.NAME
                    + ": work on the emulated NPU's stream failed: " + f, f);
        }
    }

    /** Waits for the work queued so far, then stops the stream's thread. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            onClose.run();
        }
    }

    @Override
    public String toString() {
        return "emulated NPU stream (" + queued.get() + " queued)";
    }

    /**
     * A point in a stream's work ({@code OrtSyncNotificationImpl}): activating it queues its completion behind the
     * stream's work so far; the host waits for that, another stream queues a wait for it.
     */
    static final class Notification implements SyncNotification {
        private final NpuStream stream;
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Notification(NpuStream stream) {
            this.stream = stream;
        }

        @Override
        public void activate() {
            stream.enqueue(() -> done.complete(null));
        }

        @Override
        public void waitOnDevice(SyncStream consumer) {
            if (!(consumer instanceof NpuStream other)) {
                throw new IllegalArgumentException(ExampleEpFactory.NAME + " cannot make " + consumer + " wait");
            }
            if (other != stream) {
                other.enqueue(done::join);
            }
        }

        @Override
        public void waitOnHost() {
            done.join();
            stream.throwFailure();
        }
    }
}
