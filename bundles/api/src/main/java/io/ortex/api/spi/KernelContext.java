package io.ortex.api.spi;

import io.ortex.api.ElementType;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import java.util.Map;
import java.util.Optional;

/**
 * What the runtime offers a {@link ComputeKernel} during one run: the intra-op thread pool, memory for outputs and
 * scratch that the runtime recycles, the execution of nested subgraphs (for control-flow ops), and a way to know
 * whether the run was cancelled. A context belongs to one run; {@link #parallelFor} and {@link #allocate} may be
 * called from the run's intra-op threads too.
 */
public interface KernelContext {
    /**
     * Gets how many threads {@link #parallelFor} may use.
     * The thread count ONNX Runtime's {@code KernelContext_ParallelFor} splits over.
     *
     * @return at least 1
     */
    int intraOpThreads();

    /**
     * Runs {@code body} over {@code [0, count)} split into contiguous chunks, on the intra-op threads and the
     * calling thread, and returns when every chunk is done. With one thread or a small count it runs inline.
     * Mirrors ONNX Runtime's {@code KernelContext_ParallelFor}.
     *
     * @param count the number of items
     * @param minChunk the smallest number of items worth handing to another thread
     * @param body called with {@code (from, to)} for each chunk
     */
    void parallelFor(int count, int minChunk, RangeBody body);

    /**
     * Gets a zero-filled tensor for an output or for scratch space, in memory the runtime plans. The runtime recycles
     * its array once no value of the run refers to it any more (an array no output of the kernel holds is recycled
     * when the kernel returns, so scratch needs no release); a tensor that reaches the caller as a graph output is
     * never recycled. The kernel may write the elements until it returns the tensor; from then on the tensor is
     * immutable like any other. The default makes a new tensor.
     * Mirrors ONNX Runtime's {@code KernelContext_GetOutput} for outputs and {@code KernelContext_GetAllocator} for
     * scratch.
     *
     * @param type the element type
     * @param shape the dimensions
     * @return the tensor, owned by the run
     */
    default Tensor allocate(ElementType type, long... shape) {
        return Tensor.zeros(type, shape);
    }

    /**
     * Gets a tensor as {@link #allocate} does but without clearing it: its elements are unspecified, so the kernel
     * must write every one of them. Saves the clearing pass for kernels that overwrite their whole output.
     * Mirrors ONNX Runtime's {@code KernelContext_GetOutput} for outputs and {@code KernelContext_GetAllocator} for
     * scratch.
     *
     * @param type the element type
     * @param shape the dimensions
     * @return the tensor, owned by the run
     */
    default Tensor allocateUninitialized(ElementType type, long... shape) {
        return allocate(type, shape);
    }

    /**
     * Tells whether the run was cancelled; a long kernel may check it and stop early.
     * ONNX Runtime's counterpart is the run's terminate flag ({@code RunOptionsSetTerminate}), which its kernels see
     * through the run.
     *
     * @return true when the caller asked to terminate the run
     */
    default boolean isCancelled() {
        return false;
    }

    /**
     * Runs a nested subgraph of a node this kernel computes (the branch of an If, the body of a Loop or Scan),
     * through the kernels the session's EPs compiled for it.
     * What ONNX Runtime's control-flow kernels ({@code CreateIfKernel}, {@code CreateLoopKernel}, {@code
     * CreateScanKernel}) do for an EP.
     *
     * @param subgraph a subgraph from {@link NodeView#subgraphs()} of one of the kernel's nodes
     * @param values the subgraph's inputs by its input names, plus the outer-scope values it reads (the node's
     *     implicit inputs) by name
     * @return the subgraph's outputs by name, in its output order
     * @throws NotImplementedException when this context cannot run subgraphs
     */
    default Map<String, Tensor> runSubgraph(GraphView subgraph, Map<String, Tensor> values) {
        throw new NotImplementedException("this context cannot run subgraph '" + subgraph.name() + "'");
    }

    /** The work of one chunk of a {@link #parallelFor}. */
    @FunctionalInterface
    interface RangeBody {
        /**
         * Processes items {@code [from, to)}.
         * The callback of ONNX Runtime's {@code KernelContext_ParallelFor}.
         *
         * @param from the first item
         * @param to one past the last item
         */
        void run(int from, int to);
    }

    /**
     * Gets the environment's shared allocator of a memory the kernel's EP declared ({@link EpMemory}), for outputs an
     * EP that works in its own memory returns, the counterpart of {@code OrtKernelContext_GetAllocator}. Added in
     * package version 0.6.0; the default has none.
     *
     * @param memory the memory device
     * @return the allocator of that device's {@link MemoryInfo.Kind#DEVICE} memory, or empty when the session has none
     */
    default Optional<TensorAllocator> allocator(MemoryDevice memory) {
        return Optional.empty();
    }

    /**
     * Gets the stream the kernel's EP queues its device work on in this run, the counterpart of
     * {@code KernelContext_GetGPUComputeStream}: the session's {@link SyncStream} of the EP's memory device when its
     * factory {@link EpFactory#isStreamAware() is stream aware}. Outputs the kernel returns may be filled later, in
     * the stream's order; the runtime makes their readers on other streams or the host wait, and keeps the inputs
     * alive until the stream's work for the run is done. Work queued on the stream must not use what
     * {@link #allocate} returns (recycled once the kernel returns) nor this context: it allocates from the EP's
     * {@link #allocator}. Added in package version 0.7.0; the default has none.
     *
     * @return the stream, or empty when the kernel's EP has none (it then computes its outputs before returning)
     */
    default Optional<SyncStream> syncStream() {
        return Optional.empty();
    }
}
