package io.ortex.runtime.internal;

import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.SyncStream;
import java.util.Optional;

/**
 * The context of one step of a stream-aware EP: the run's context, plus the session's stream of the EP's memory
 * device ({@link KernelContext#syncStream()}). Lives for one kernel call.
 */
final class StreamKernelContext extends ForwardingKernelContext implements ArenaContext {
    private final RunArena arena;
    private final SyncStream stream;

    /**
     * Wraps a run's context.
     *
     * @param run the run's context
     * @param arena the run's memory
     * @param stream the step's stream
     */
    StreamKernelContext(KernelContext run, RunArena arena, SyncStream stream) {
        super(run);
        this.arena = arena;
        this.stream = stream;
    }

    @Override
    public RunArena arena() {
        return delegate instanceof ArenaContext a ? a.arena() : arena;
    }

    @Override
    public Optional<SyncStream> syncStream() {
        return Optional.of(stream);
    }
}
