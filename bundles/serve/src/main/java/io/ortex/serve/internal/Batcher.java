package io.ortex.serve.internal;

import io.ortex.api.Names;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dynamic batching for one loaded model version: requests wait in a bounded queue, and one thread of the batcher's
 * own takes them in order, merges those that fit together (the same outputs asked for, the same dimensions after the
 * first in every input, at most {@link ModelConfig.Batching#maxBatchSize()} rows in all), waiting up to
 * {@link ModelConfig.Batching#maxQueueDelayMicros()} after the oldest one for more, concatenates their inputs along
 * the first dimension, runs the session once and splits every output back by each request's rows. A request that
 * fits no other (different shapes, inputs whose first dimensions differ, more rows than a batch holds) runs alone, in
 * its turn. An error of a merged run reaches every request in it. One batch runs at a time.
 *
 * <p>Only a model whose every input and output has a symbolic first dimension, the same symbol where the model names
 * one, is batched ({@link #whyNotBatchable(Session)}); the model must treat the rows of its inputs independently,
 * which the configuration asserts by turning batching on. When a merged run's outputs do not have the batch's rows in
 * their first dimension, the requests are run again one by one, so a model that breaks the assumption gives correct
 * results, only slower.
 *
 * <p>Lifetime: the batcher belongs to a {@link ServedModel}; every queued request holds a reference to it, so the
 * session stays open until the queue is empty, and {@link #close()} comes after the last reference. Thread safe.
 */
final class Batcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.serve.batching");

    private final String model;
    private final String version;
    private final Session session;
    private final ModelConfig.Batching settings;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread thread;
    private final java.util.concurrent.atomic.AtomicInteger pending = new java.util.concurrent.atomic.AtomicInteger();
    private boolean closed;
    private volatile boolean warnedUnsplittable;

    /**
     * The outcome of one request.
     *
     * @param outputs the outputs asked for, by name
     * @param queueNanos the time the request waited before its batch ran
     * @param computeNanos the time its batch ran
     * @param batchSize how many requests the run served
     * @param first whether this request came first in its batch (so the batch is counted once)
     */
    record Result(Map<String, Tensor> outputs, long queueNanos, long computeNanos, int batchSize, boolean first) {
    }

    /**
     * Creates a batcher and starts its thread.
     *
     * @param model the model's name
     * @param version the version
     * @param session the session, which must be batchable ({@link #whyNotBatchable(Session)} null)
     * @param settings the batching settings
     */
    Batcher(String model, String version, Session session, ModelConfig.Batching settings) {
        this.model = model;
        this.version = version;
        this.session = session;
        this.settings = settings;
        this.thread = new Thread(this::dispatch, "ortex-batcher-" + model + "-" + version);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Tells why a model cannot be batched.
     *
     * @param session the model's session
     * @return why not, or null when every input and output has a symbolic first dimension (the same symbol where
     *     named)
     */
    static String whyNotBatchable(Session session) {
        String symbol = null;
        List<TensorInfo> all = new ArrayList<>(session.inputs());
        all.addAll(session.outputs());
        for (TensorInfo info : all) {
            if (!info.hasShape() || info.dims().length == 0) {
                return Names.quote(info.name()) + " has no first dimension";
            }
            if (info.dims()[0] >= 0) {
                return Names.quote(info.name()) + " has a fixed first dimension (" + info.dims()[0] + ")";
            }
            String name = info.dimNames() == null ? "" : info.dimNames().get(0);
            if (!name.isEmpty()) {
                if (symbol != null && !symbol.equals(name)) {
                    return Names.quote(info.name()) + " has the first dimension " + Names.quote(name)
                            + ", another has " + Names.quote(symbol);
                }
                symbol = name;
            }
        }
        return null;
    }

    /**
     * Queues a request and waits for its batch to run.
     *
     * @param inputs the request's inputs, checked against the model
     * @param outputNames the outputs asked for
     * @return the request's outputs and timings
     * @throws ProtocolException (503) when the queue is full or the model is closing
     * @throws RuntimeException what the run threw, for every request of the batch
     */
    Result submit(Map<String, Tensor> inputs, List<String> outputNames) {
        Pending p = new Pending(inputs, outputNames, mergeKey(inputs, outputNames), rows(inputs));
        lock.lock();
        try {
            if (closed) {
                throw new ProtocolException(ProtocolException.UNAVAILABLE, "model " + Names.quote(model)
                        + " version " + version + " is closing; try again");
            }
            if (queue.size() >= settings.maxQueueSize()) {
                throw new ProtocolException(ProtocolException.UNAVAILABLE, "model " + Names.quote(model)
                        + ": the batching queue is full (" + ModelConfig.MAX_QUEUE_SIZE + " "
                        + settings.maxQueueSize() + "); try again");
            }
            queue.add(p);
            pending.incrementAndGet();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            return await(p);
        } finally {
            pending.decrementAndGet();
        }
    }

    private Result await(Pending p) {
        try {
            return p.result.get();
        } catch (InterruptedException e) {
            lock.lock();
            try {
                if (queue.remove(p)) {
                    Thread.currentThread().interrupt();
                    throw new ProtocolException(ProtocolException.UNAVAILABLE, "interrupted while queued");
                }
            } finally {
                lock.unlock();
            }
            // its batch runs now and ends soon: wait for it, so the session is not closed under it
            try {
                return p.result.join();
            } catch (java.util.concurrent.CompletionException failed) {
                throw rethrow(failed.getCause());
            } finally {
                Thread.currentThread().interrupt();
            }
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** Stops the thread; called when the version closes, when no request is queued. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts the requests waiting now.
     *
     * @return the queue's length
     */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts the requests submitted and not yet answered: queued, in a batch being formed, or running.
     *
     * @return the count
     */
    int pending() {
        return pending.get();
    }

    /** The batcher's thread: forms batches and runs them, until closed with an empty queue. */
    private void dispatch() {
        List<Pending> batch;
        while ((batch = nextBatch()) != null) {
            execute(batch);
        }
    }

    /**
     * Takes the oldest request and those that merge with it, waiting up to the delay for more; null once closed with
     * an empty queue. Interrupts are ignored: the thread ends only through {@link #close()}, so no request is left.
     */
    private List<Pending> nextBatch() {
        lock.lock();
        try {
            while (queue.isEmpty()) {
                if (closed) {
                    return null;
                }
                changed.awaitUninterruptibly();
            }
            Pending first = queue.poll();
            List<Pending> batch = new ArrayList<>();
            batch.add(first);
            if (first.key == null || first.rows >= settings.maxBatchSize()) {
                return batch;
            }
            long rows = first.rows;
            long elements = first.elements;
            long deadline = first.enqueued + TimeUnit.MICROSECONDS.toNanos(settings.maxQueueDelayMicros());
            while (true) {
                for (Iterator<Pending> it = queue.iterator(); it.hasNext() && rows < settings.maxBatchSize(); ) {
                    Pending p = it.next();
                    if (first.key.equals(p.key) && rows + p.rows <= settings.maxBatchSize()
                            && elements + p.elements <= Tensor.MAX_ELEMENTS) {
                        it.remove();
                        batch.add(p);
                        rows += p.rows;
                        elements += p.elements;
                    }
                }
                long left = deadline - System.nanoTime();
                if (rows >= settings.maxBatchSize() || left <= 0 || closed) {
                    return batch;
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    return batch;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Runs one batch and completes each of its requests; nothing it throws escapes the batcher's thread. */
    private void execute(List<Pending> batch) {
        long start = System.nanoTime();
        List<Map<String, Tensor>> outputs;
        long compute;
        try {
            outputs = batch.size() == 1 ? List.of(session.run(batch.get(0).inputs, batch.get(0).outputNames))
                    : runMerged(batch);
            compute = System.nanoTime() - start;
        } catch (Throwable t) {
            // the thread goes on: every later request would wait forever otherwise
            Throwable reported = batch.size() == 1 || !(t instanceof RuntimeException r) ? t
                    : new MergedRunException(r, batch.size());
            for (Pending p : batch) {
                p.result.completeExceptionally(reported);
            }
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            Pending p = batch.get(i);
            p.result.complete(new Result(outputs.get(i), start - p.enqueued, compute, batch.size(), i == 0));
        }
    }

    private List<Map<String, Tensor>> runMerged(List<Pending> batch) {
        Pending first = batch.get(0);
        Map<String, Tensor> merged = new LinkedHashMap<>();
        for (String name : first.inputs.keySet()) {
            List<Tensor> parts = new ArrayList<>(batch.size());
            for (Pending p : batch) {
                parts.add(p.inputs.get(name));
            }
            merged.put(name, concat(parts));
        }
        Map<String, Tensor> results = session.run(merged, first.outputNames);
        long total = batch.stream().mapToLong(p -> p.rows).sum();
        for (Map.Entry<String, Tensor> e : results.entrySet()) {
            if (e.getValue().rank() == 0 || e.getValue().dim(0) != total) {
                if (!warnedUnsplittable) {
                    warnedUnsplittable = true;
                    LOG.warn("model {} version {}: output {} of a batch of {} rows has the shape {}, which does not "
                            + "split by rows; its requests run one by one", Names.quote(model), version,
                            Names.quote(e.getKey()), total, Tensor.shapeString(e.getValue().shape()));
                }
                List<Map<String, Tensor>> alone = new ArrayList<>();
                for (Pending p : batch) {
                    alone.add(session.run(p.inputs, p.outputNames));
                }
                return alone;
            }
        }
        List<Map<String, Tensor>> split = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            split.add(new LinkedHashMap<>());
        }
        for (String name : first.outputNames) {
            Tensor all = results.get(name);
            long offset = 0;
            for (int i = 0; i < batch.size(); i++) {
                long rows = batch.get(i).rows;
                split.get(i).put(name, slice(all, offset, rows));
                offset += rows;
            }
        }
        return split;
    }

    /** Concatenates tensors of one element type along the first dimension; the other dimensions are equal. */
    static Tensor concat(List<Tensor> parts) {
        Tensor first = parts.get(0);
        long rows = 0;
        int elements = 0;
        for (Tensor t : parts) {
            rows += t.dim(0);
            elements = Math.addExact(elements, t.size());
        }
        Object data = java.lang.reflect.Array.newInstance(first.type().storage().getComponentType(), elements);
        int at = 0;
        for (Tensor t : parts) {
            System.arraycopy(t.data(), 0, data, at, t.size());
            at += t.size();
        }
        long[] shape = first.shape();
        shape[0] = rows;
        return Tensor.of(first.type(), shape, data);
    }

    /** Copies rows {@code [offset, offset + rows)} of a tensor. */
    static Tensor slice(Tensor t, long offset, long rows) {
        long[] shape = t.shape();
        shape[0] = 1;
        int perRow = Tensor.checkedElementCount(shape);
        shape[0] = rows;
        int count = Math.toIntExact(rows * perRow);
        Object data = java.lang.reflect.Array.newInstance(t.type().storage().getComponentType(), count);
        System.arraycopy(t.data(), Math.toIntExact(offset * perRow), data, 0, count);
        return Tensor.of(t.type(), shape, data);
    }

    /** The first dimension every input shares, or -1 when they differ. */
    private static long rows(Map<String, Tensor> inputs) {
        long rows = -1;
        for (Tensor t : inputs.values()) {
            if (t.rank() == 0 || rows >= 0 && t.dim(0) != rows) {
                return -1;
            }
            rows = t.dim(0);
        }
        return rows;
    }

    /**
     * What requests that merge share: the outputs asked for and every input's element type and dimensions after the
     * first; null for a request that merges with none (inputs whose first dimensions differ, or none at all).
     */
    private static String mergeKey(Map<String, Tensor> inputs, List<String> outputNames) {
        if (inputs.isEmpty() || rows(inputs) < 0) {
            return null;
        }
        StringBuilder key = new StringBuilder();
        for (String o : outputNames) {
            key.append(o.length()).append(':').append(o);
        }
        key.append('|');
        for (Map.Entry<String, Tensor> e : inputs.entrySet()) {
            long[] shape = e.getValue().shape();
            key.append(e.getKey().length()).append(':').append(e.getKey()).append(e.getValue().type())
                    .append(Arrays.toString(Arrays.copyOfRange(shape, 1, shape.length)));
        }
        return key.toString();
    }

    /** The failure of a run that merged several requests: each of them gets it. */
    static final class MergedRunException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int requests;

        MergedRunException(RuntimeException cause, int requests) {
            super(cause.getMessage(), cause);
            this.requests = requests;
        }

        /**
         * Gets the failure of the run.
         *
         * @return what the session threw
         */
        RuntimeException failure() {
            return (RuntimeException) getCause();
        }

        /**
         * Counts the requests merged into the run.
         *
         * @return the count
         */
        int requests() {
            return requests;
        }
    }

    /** A queued request. */
    private static final class Pending {
        final Map<String, Tensor> inputs;
        final List<String> outputNames;
        final String key;
        final long rows;
        /** The element count of its largest input: a merged input must fit in a tensor. */
        final long elements;
        final long enqueued = System.nanoTime();
        final CompletableFuture<Result> result = new CompletableFuture<>();

        Pending(Map<String, Tensor> inputs, List<String> outputNames, String key, long rows) {
            this.inputs = inputs;
            this.outputNames = outputNames;
            this.key = key;
            this.rows = rows;
            this.elements = inputs.values().stream().mapToLong(Tensor::size).max().orElse(0);
        }
    }
}
