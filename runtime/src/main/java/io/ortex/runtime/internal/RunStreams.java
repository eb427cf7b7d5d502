package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.SyncNotification;
import io.ortex.api.spi.SyncStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one run does with its session's streams: the notifications it creates between a producing stream and a
 * reader on another stream or the host, the device values it frees while work queued on a stream may still read them
 * (closed only once that work is done), and the run-end synchronization: each stream the run used is flushed, waited
 * for, and told that the run ended ({@code OrtSyncStreamImpl::Flush}, {@code OnSessionRunEnd}). Shared by the run's
 * main graph and its nested subgraphs; thread safe.
 */
final class RunStreams {
    private final List<SyncNotification> notifications = new ArrayList<>();
    private final List<Tensor> closeAtEnd = new ArrayList<>();
    private final Set<SyncStream> used = new LinkedHashSet<>();

    /**
     * Marks that the run queued work on a stream, which is then synchronized when the run ends.
     *
     * @param stream the stream
     */
    synchronized void use(SyncStream stream) {
        used.add(stream);
    }

    /**
     * Creates a notification on a stream and activates it, after the work the run queued there so far.
     *
     * @param producer the stream that produced a value read elsewhere
     * @return the activated notification, closed when the run ends
     */
    SyncNotification notifyAfter(SyncStream producer) {
        use(producer);
        SyncNotification n = producer.createNotification();
        if (n == null) {
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "stream " + producer + " created no notification");
        }
        synchronized (this) {
            notifications.add(n);
        }
        n.activate();
        return n;
    }

    /**
     * Makes a reader wait for a notification: a stream's later work ({@code WaitOnDevice}) or the calling thread
     * ({@code WaitOnHost}).
     *
     * @param n the producer's notification
     * @param consumer the reader's stream, or {@code null} for the host
     */
    static void await(SyncNotification n, SyncStream consumer) {
        if (consumer == null) {
            n.waitOnHost();
        } else {
            n.waitOnDevice(consumer);
        }
    }

    /**
     * Keeps a device value the run freed until its streams' work is done, then closes it.
     *
     * @param t the value
     */
    synchronized void closeAtEnd(Tensor t) {
        closeAtEnd.add(t);
    }

    /**
     * Ends the run on the streams: flushes each stream it used, waits for its work, tells it the run ended, then closes
     * the values freed meanwhile and the run's notifications. Everything is done even when a step fails; the first
     * failure is thrown at the end.
     *
     * @throws RuntimeException the first failure of a stream's work or call
     */
    void finish() {
        List<SyncStream> streams;
        List<Tensor> values;
        List<SyncNotification> notes;
        synchronized (this) {
            streams = new ArrayList<>(used);
            values = new ArrayList<>(closeAtEnd);
            notes = new ArrayList<>(notifications);
            used.clear();
            closeAtEnd.clear();
            notifications.clear();
        }
        RuntimeException failure = null;
        for (SyncStream s : streams) {
            try {
                s.flush();
                drain(s);
            } catch (OrtexException e) {
                failure = add(failure, e);
            } catch (RuntimeException e) {
                failure = add(failure, new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "the run's work on stream " + s
                        + " failed: " + e, e));
            }
            try {
                s.onSessionRunEnd();
            } catch (RuntimeException e) {
                failure = add(failure, e);
            }
        }
        for (Tensor t : values) {
            t.close();
        }
        for (SyncNotification n : notes) {
            try {
                n.close();
            } catch (RuntimeException e) {
                failure = add(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Waits until the work queued on a stream so far is done: a notification activated now and waited for on the host.
     *
     * @param s the stream
     */
    static void drain(SyncStream s) {
        SyncNotification n = s.createNotification();
        if (n == null) {
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "stream " + s + " created no notification");
        }
        try {
            n.activate();
            n.waitOnHost();
        } finally {
            n.close();
        }
    }

    private static RuntimeException add(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
