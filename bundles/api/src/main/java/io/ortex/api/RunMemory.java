package io.ortex.api;

/**
 * The memory check made before a tensor is allocated during a run. Kernels, and the factories of {@link Tensor},
 * call {@link #check} with the element type and count of a buffer before allocating it; the check refuses, with a
 * {@link ResourceLimitException} that names the limit, a buffer with more elements than
 * {@link ResourceLimits#tensorElements()}, one larger than the JVM's maximum heap, and one that would take the
 * tensors the run holds beyond {@link ResourceLimits#runBytes()}. A refused buffer is never allocated, so the run
 * fails cleanly instead of with an {@link OutOfMemoryError}, and the session stays usable.
 *
 * <p>The runtime opens a {@link Budget} on the thread that executes a run ({@link #open}) and accounts there for the
 * tensors the run holds; without one (a kernel called directly, a thread of the intra-op pool) only the per-tensor and
 * heap checks apply.
 *
 * <p>Thread safe: a budget belongs to the thread that opened it.
 */
public final class RunMemory {
    private static final ThreadLocal<Budget> CURRENT = new ThreadLocal<>();

    private RunMemory() {
    }

    /**
     * What one run may still allocate, held by the thread that executes the run. Not thread safe: it is used by that
     * thread only.
     */
    public static final class Budget implements AutoCloseable {
        private final ResourceLimits limits;
        private final Budget outer;
        private long held;

        private Budget(ResourceLimits limits, Budget outer) {
            this.limits = limits;
            this.outer = outer;
        }

        /**
         * Counts bytes the run now holds (a tensor a step produced).
         *
         * @param bytes the bytes
         */
        public void hold(long bytes) {
            held += bytes;
        }

        /**
         * Stops counting bytes the run let go of (a tensor freed after its last reader).
         *
         * @param bytes the bytes
         */
        public void release(long bytes) {
            held = Math.max(0, held - bytes);
        }

        /**
         * Gets the bytes the run holds now.
         *
         * @return the bytes
         */
        public long held() {
            return held;
        }

        /**
         * Gets the limits the budget applies.
         *
         * @return the limits
         */
        public ResourceLimits limits() {
            return limits;
        }

        /** Ends the budget on its thread, restoring the one it replaced. */
        @Override
        public void close() {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }

    /**
     * Opens a run's budget on the current thread; close it when the run ends. A nested open (a subgraph run on the
     * same thread) gets a budget of its own that starts from what the outer one holds.
     *
     * @param limits the run's limits
     * @return the budget
     */
    public static Budget open(ResourceLimits limits) {
        Budget outer = CURRENT.get();
        Budget b = new Budget(limits, outer);
        if (outer != null) {
            b.held = outer.held;
        }
        CURRENT.set(b);
        return b;
    }

    /**
     * Gets the budget of the run executing on this thread.
     *
     * @return the budget, or {@code null} outside a run
     */
    public static Budget current() {
        return CURRENT.get();
    }

    /**
     * Checks that a buffer of {@code elements} elements of {@code type} may be allocated now.
     *
     * @param type the element type
     * @param elements the element count
     * @throws ResourceLimitException when it has too many elements, would not fit the JVM's heap, or would take the
     *     run beyond its limit
     */
    public static void check(ElementType type, long elements) {
        check(type.displayName(), elements, bytes(type, elements));
    }

    /**
     * Checks an element count against the run's limit on tensor elements (a shape being sized, whatever its type).
     *
     * @param elements the element count
     * @throws ResourceLimitException when the count is beyond the limit
     */
    static void checkElements(long elements) {
        checkCount("a tensor of " + elements + " elements", elements, CURRENT.get());
    }

    private static void checkCount(String what, long elements, Budget b) {
        long maxElements = b == null ? Tensor.MAX_ELEMENTS : b.limits.tensorElements();
        if (elements > maxElements) {
            throw new ResourceLimitException(ErrorCode.RUNTIME_EXCEPTION, what + " is more than the " + maxElements
                    + " a tensor may hold (" + ResourceLimits.TENSOR_ELEMENTS + ")", ResourceLimits.TENSOR_ELEMENTS);
        }
    }

    private static void check(String type, long elements, long bytes) {
        Budget b = CURRENT.get();
        String what = "a " + type + " tensor of " + elements + " elements";
        checkCount(what, elements, b);
        long heap = Runtime.getRuntime().maxMemory();
        // the tighter of the two limits speaks: the run's when configured below the heap
        if (b != null && b.limits.runBytes() < heap) {
            checkRun(what, bytes, b);
        }
        if (bytes > heap) {
            throw new ResourceLimitException(ErrorCode.RUNTIME_EXCEPTION, what + " needs "
                    + ResourceLimits.bytes(bytes) + ", more than this JVM's maximum heap of "
                    + ResourceLimits.bytes(heap) + " (-Xmx)", null);
        }
        if (b != null) {
            checkRun(what, bytes, b);
        }
    }

    private static void checkRun(String what, long bytes, Budget b) {
        if (bytes > b.limits.runBytes() - b.held) {
            throw new ResourceLimitException(ErrorCode.RUNTIME_EXCEPTION, what + " needs "
                    + ResourceLimits.bytes(bytes) + "; with the " + ResourceLimits.bytes(b.held)
                    + " this run holds, that is more than the " + ResourceLimits.bytes(b.limits.runBytes())
                    + " a run may hold (" + ResourceLimits.RUN_BYTES + ")", ResourceLimits.RUN_BYTES);
        }
    }

    /**
     * Gives the bytes a buffer takes in memory: its elements times the size of one element of its Java storage
     * (references count 8 bytes).
     *
     * @param type the element type
     * @param elements the element count
     * @return the bytes, saturated at {@link Long#MAX_VALUE}
     */
    public static long bytes(ElementType type, long elements) {
        Class<?> storage = type.storage();
        Class<?> c = storage == null ? byte.class : storage.getComponentType();
        int size = c == double.class || c == long.class || !c.isPrimitive() ? 8
                : c == float.class || c == int.class ? 4 : c == short.class || c == char.class ? 2 : 1;
        return elements > Long.MAX_VALUE / size ? Long.MAX_VALUE : elements * size;
    }

    /**
     * Gives the bytes a tensor's elements take in memory.
     *
     * @param t the tensor
     * @return the bytes
     */
    public static long bytes(Tensor t) {
        return bytes(t.type(), t.size());
    }
}
