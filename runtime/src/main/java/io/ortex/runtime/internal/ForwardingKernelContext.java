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
 * A kernel context that hands every call to another one: the base of the contexts that add something to a run's
 * context for one kernel call (a stream, outputs that reuse an input's buffer).
 */
abstract class ForwardingKernelContext implements KernelContext {
    /** The context every call goes to. */
    protected final KernelContext delegate;

    /**
     * Wraps a context.
     *
     * @param delegate the context every call goes to
     */
    ForwardingKernelContext(KernelContext delegate) {
        this.delegate = delegate;
    }

    @Override
    public int intraOpThreads() {
        return delegate.intraOpThreads();
    }

    @Override
    public void parallelFor(int count, int minChunk, RangeBody body) {
        delegate.parallelFor(count, minChunk, body);
    }

    @Override
    public Tensor allocate(ElementType type, long... shape) {
        return delegate.allocate(type, shape);
    }

    @Override
    public Tensor allocateUninitialized(ElementType type, long... shape) {
        return delegate.allocateUninitialized(type, shape);
    }

    @Override
    public boolean isCancelled() {
        return delegate.isCancelled();
    }

    @Override
    public Map<String, Tensor> runSubgraph(GraphView subgraph, Map<String, Tensor> values) {
        return delegate.runSubgraph(subgraph, values);
    }

    @Override
    public Optional<TensorAllocator> allocator(MemoryDevice memory) {
        return delegate.allocator(memory);
    }

    @Override
    public Optional<SyncStream> syncStream() {
        return delegate.syncStream();
    }
}
