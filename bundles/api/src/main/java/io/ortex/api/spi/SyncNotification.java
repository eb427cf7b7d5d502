package io.ortex.api.spi;

/**
 * A point in a {@link SyncStream}'s work that another stream or the host waits for, the counterpart of ONNX
 * Runtime's {@code OrtSyncNotificationImpl}. The runtime creates it on the stream that produces a value
 * ({@link SyncStream#createNotification()}), calls {@link #activate()} right after queuing the producing work, and
 * then, before the value is read elsewhere, {@link #waitOnDevice} for a reader on another stream or
 * {@link #waitOnHost()} for a reader on the host (a kernel of an EP without streams, a data transfer of host memory,
 * the caller receiving a graph output). Several readers may wait on one notification. Every method may be called
 * from any thread.
 */
public interface SyncNotification extends AutoCloseable {
    /**
     * Marks the point: the notification completes once the work queued on its stream before this call has finished,
     * the counterpart of {@code OrtSyncNotificationImpl::Activate}. Called once.
     */
    void activate();

    /**
     * Makes the work queued on another stream from now on wait until this notification completes, without blocking
     * the calling thread, the counterpart of {@code OrtSyncNotificationImpl::WaitOnDevice}.
     *
     * @param consumer the stream that reads what the notified work produced
     */
    void waitOnDevice(SyncStream consumer);

    /**
     * Blocks the calling thread until this notification completes, the counterpart of
     * {@code OrtSyncNotificationImpl::WaitOnHost}. Throws when the stream's work failed, naming what failed.
     */
    void waitOnHost();

    /**
     * Releases the notification, the counterpart of {@code OrtSyncNotificationImpl::Release}; called once, when the
     * run that created it ends. Default: nothing.
     */
    @Override
    default void close() {
    }
}
