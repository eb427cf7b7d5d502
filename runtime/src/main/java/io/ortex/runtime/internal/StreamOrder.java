package io.ortex.runtime.internal;

import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.SyncNotification;
import io.ortex.api.spi.SyncStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Where a plan's values are produced among the session's streams, and which of them need a notification: a value
 * produced on a stream (a stream-aware EP's step, a copy queued on a stream) and read on another stream or on the
 * host gets a notification created and activated right after its producer, and each such reader waits on it
 * ({@code WaitOnDevice} for a stream, {@code WaitOnHost} for the host) before it reads. A reader on the producer's own
 * stream needs nothing: a stream runs its work in order. Immutable; one per plan.
 */
final class StreamOrder {
    private static final StreamOrder NONE = new StreamOrder(null, null, List.of());

    private final SyncStream[] producer;
    private final boolean[] notify;
    private final List<SyncStream> outputStreams;

    private StreamOrder(SyncStream[] producer, boolean[] notify, List<SyncStream> outputStreams) {
        this.producer = producer;
        this.notify = notify;
        this.outputStreams = outputStreams;
    }

    /**
     * Finds the producing stream of every slot and the slots that need a notification.
     *
     * @param steps the plan's steps, in order
     * @param outputCopies the copies of graph outputs to host memory
     * @param slotCount the plan's slot count
     * @return the plan's stream order, empty when nothing runs on a stream
     */
    static StreamOrder of(List<ExecutionPlan.Step> steps, Collection<ExecutionPlan.Copy> outputCopies,
                          int slotCount) {
        SyncStream[] producer = new SyncStream[slotCount];
        boolean any = false;
        for (ExecutionPlan.Step s : steps) {
            for (ExecutionPlan.Copy c : s.copies()) {
                if (c != null) {
                    producer[c.targetSlot()] = c.stream();
                    any |= c.stream() != null;
                }
            }
            for (int slot : s.outputSlots()) {
                if (slot >= 0) {
                    producer[slot] = s.stream();
                }
            }
            any |= s.stream() != null;
        }
        List<SyncStream> outputStreams = new ArrayList<>();
        for (ExecutionPlan.Copy c : outputCopies) {
            if (c.stream() != null && !outputStreams.contains(c.stream())) {
                outputStreams.add(c.stream());
            }
        }
        if (!any && outputStreams.isEmpty()) {
            return NONE;
        }
        boolean[] notify = new boolean[slotCount];
        for (ExecutionPlan.Step s : steps) {
            for (ExecutionPlan.Copy c : s.copies()) {
                if (c != null) {
                    mark(producer, notify, c.sourceSlot(), reader(c));
                }
            }
            int[] ins = s.inputSlots();
            for (int k = 0; k < ins.length; k++) {
                if (ins[k] >= 0) {
                    mark(producer, notify, ins[k], s.inputStreams()[k]);
                }
            }
        }
        return new StreamOrder(producer, notify, List.copyOf(outputStreams));
    }

    /**
     * Gets the stream that reads a copy's source: the copy's stream where the source is in device memory, the host
     * where it is in host memory, which a data transfer reads before it returns.
     *
     * @param c the copy
     * @return the reading stream, or {@code null} for the host
     */
    static SyncStream reader(ExecutionPlan.Copy c) {
        return c.source().device().equals(MemoryDevice.CPU) ? null : c.stream();
    }

    private static void mark(SyncStream[] producer, boolean[] notify, int slot, SyncStream consumer) {
        if (producer[slot] != null && producer[slot] != consumer) {
            notify[slot] = true;
        }
    }

    /**
     * Tells whether nothing of the plan runs on a stream.
     *
     * @return true for a plan without streams
     */
    boolean isEmpty() {
        return producer == null;
    }

    /**
     * Gets the streams that graph outputs are copied to host memory on.
     *
     * @return the streams, each once
     */
    List<SyncStream> outputStreams() {
        return outputStreams;
    }

    /**
     * Makes a reader wait for a value produced on another stream, before it reads it.
     *
     * @param slot the value's slot
     * @param consumer the reader's stream, or {@code null} for the host
     * @param notes the run's notifications by slot
     */
    void await(int slot, SyncStream consumer, SyncNotification[] notes) {
        SyncStream p = producer[slot];
        if (p != null && p != consumer && notes[slot] != null) {
            RunStreams.await(notes[slot], consumer);
        }
    }

    /**
     * Records that a value's producer has been queued: where another stream or the host reads the value, its stream
     * creates and activates the value's notification now.
     *
     * @param slot the value's slot
     * @param stream the producer's stream, or {@code null} for the host
     * @param notes the run's notifications by slot
     * @param streams the run's streams
     */
    void produced(int slot, SyncStream stream, SyncNotification[] notes, RunStreams streams) {
        if (stream != null && notify[slot]) {
            notes[slot] = streams.notifyAfter(stream);
        }
    }
}
