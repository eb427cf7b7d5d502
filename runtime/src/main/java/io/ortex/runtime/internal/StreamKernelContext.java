package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import java.util.Map;
import java.util.Optional;

/**
 * The context of one step of a stream-aware EP: the run's context, plus the session's stream of the EP's memory
 * device ({@link KernelContext#syncStream()}). Lives for one kernel call.
 */
final class StreamKernelContext implements KernelContext, ArenaContext {
    private final KernelContext run;
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
        this.run = run;
        this.arena = arena;
        this.stream = stream;
    }

    @Override
    public RunArena arena() {
        return run instanceof ArenaContext a ? a.arena() : arena;
    }

    @Override
    public Optional<SyncStream> syncStream() {
        return Optional.of(stream);
    }

    @Override
    public int intraOpThreads() {
        return run.intraOpThreads();
    }

    @Override
    public void parallelFor(int count, int minChunk, RangeBody body) {
        run.parallelFor(count, minChunk, body);
    }

    @Override
    public Tensor allocate(ElementType type, long... shape) {
        return run.allocate(type, shape);
    }

    @Override
    public Tensor allocateUninitialized(ElementType type, long... shape) {
        return run.allocateUninitialized(type, shape);
    }

    @Override
    public boolean isCancelled() {
        return run.isCancelled();
    }

    @Override
    public Map<String, Tensor> runSubgraph(GraphView subgraph, Map<String, Tensor> values) {
        return run.runSubgraph(subgraph, values);
    }

    @Override
    public Optional<TensorAllocator> allocator(MemoryDevice memory) {
        return run.allocator(memory);
    }
}
