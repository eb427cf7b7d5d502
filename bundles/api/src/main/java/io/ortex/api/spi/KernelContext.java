package io.ortex.api.spi;

/**
 * What the runtime offers a {@link ComputeKernel} during one run: the intra-op thread pool, and a way to know
 * whether the run was cancelled.
 */
public interface KernelContext {
    /**
     * Gets how many threads {@link #parallelFor} may use.
     *
     * @return at least 1
     */
    int intraOpThreads();

    /**
     * Runs {@code body} over {@code [0, count)} split into contiguous chunks, on the intra-op threads and the
     * calling thread, and returns when every chunk is done. With one thread or a small count it runs inline.
     *
     * @param count the number of items
     * @param minChunk the smallest number of items worth handing to another thread
     * @param body called with {@code (from, to)} for each chunk
     */
    void parallelFor(int count, int minChunk, RangeBody body);

    /**
     * Tells whether the run was cancelled; a long kernel may check it and stop early.
     *
     * @return true when the caller asked to terminate the run
     */
    default boolean isCancelled() {
        return false;
    }

    /** The work of one chunk of a {@link #parallelFor}. */
    @FunctionalInterface
    interface RangeBody {
        /**
         * Processes items {@code [from, to)}.
         *
         * @param from the first item
         * @param to one past the last item
         */
        void run(int from, int to);
    }
}
