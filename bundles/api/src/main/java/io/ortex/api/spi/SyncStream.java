package io.ortex.api.spi;

/**
 * An ordered queue of work on one EP memory device, the counterpart of ONNX Runtime's {@code OrtSyncStreamImpl}:
 * kernels of a stream-aware EP ({@link EpFactory#isStreamAware()}) queue their device work on it (they find it in
 * {@link KernelContext#syncStream()}), and data transfers queue copies to or from the device on it
 * ({@link DataTransfer#copy(io.ortex.api.Tensor, MemoryDevice, MemoryDevice, TensorAllocator, SyncStream)}). Work
 * on one stream runs in the order it was queued; work of different streams, and the host, synchronize only through
 * {@link SyncNotification}s that this stream creates.
 *
 * <p>The runtime creates one stream per session and non-CPU memory device of its stream-aware EPs (through
 * {@link ExecutionProvider#createSyncStream}, falling back to {@link EpFactory#createSyncStream}), shares it between
 * the session's concurrent runs, calls {@link #flush()} and {@link #onSessionRunEnd()} at the end of every run that
 * used it, and closes it ({@code OrtSyncStreamImpl::Release}) when the session closes, before it releases the EP.
 * Every method may be called from any thread.
 */
public interface SyncStream extends AutoCloseable {
    /**
     * Gets the device's own handle of the stream, the counterpart of {@code OrtSyncStreamImpl::GetHandle} (a
     * {@code cudaStream_t} in ONNX Runtime's CUDA EP). The runtime never looks into it; the EP's kernels and data
     * transfer use it to queue work.
     *
     * @return the handle, not null
     */
    Object handle();

    /**
     * Creates a notification that marks a point in this stream's work, the counterpart of
     * {@code OrtSyncStreamImpl::CreateNotification}. The runtime activates it right after queuing the work whose
     * results another stream or the host reads, then makes the reader wait on it; it closes the notification when the
     * run ends.
     *
     * @return a new notification, not yet activated
     */
    SyncNotification createNotification();

    /**
     * Submits the work queued so far to the device without waiting for it, the counterpart of
     * {@code OrtSyncStreamImpl::Flush}. The runtime calls it at the end of each run that used the stream, before
     * {@link #onSessionRunEnd()}, as ONNX Runtime's stream collection does when a run ends. Default: nothing (work runs
     * as soon as it is queued).
     */
    default void flush() {
    }

    /**
     * Tells the stream that a run of its session has ended and the runtime has waited for the work the run queued,
     * the counterpart of {@code OrtSyncStreamImpl::OnSessionRunEnd}; the stream may release what it kept for that run.
     * Other runs of the session may still be queuing work on the stream, which this must not disturb. Default:
     * nothing.
     */
    default void onSessionRunEnd() {
    }

    /**
     * Releases the stream once the runtime no longer uses it, the counterpart of {@code OrtSyncStreamImpl::Release};
     * the runtime has waited for all of its work first. Called once, when the session closes. Default: nothing.
     */
    @Override
    default void close() {
    }
}
