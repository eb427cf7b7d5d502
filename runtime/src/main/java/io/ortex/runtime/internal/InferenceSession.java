package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.epcontext.EpContextGeneration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A session of the runtime: the model partitioned among its EPs, each EP's groups compiled, and one plan per graph.
 * {@link #run} is thread safe: every run has its own value table and kernels are shared read-only; when an EP says
 * its kernels cannot run concurrently, runs are serialized. {@link #close()} refuses new runs at once, waits for the
 * runs in flight, then releases the EPs and the session's leases on their libraries.
 */
final class InferenceSession implements Session {
    private final String id;
    private final OnnxModel model;
    private final SessionCompiler.Result compiled;
    private final GraphPlan main;
    private final Map<String, TensorInfo> inputs;
    private final Set<String> optionalInputs;
    private final List<TensorInfo> outputs;
    private final IntraOpPool intraOp;
    private final Runnable onClose;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final ReentrantLock serial;
    private final List<String> epNames;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean closed;
    private volatile String failure;

    InferenceSession(String id, OnnxModel model, SessionCompiler.Result compiled, IntraOpPool intraOp,
                     Runnable onClose) {
        this.id = id;
        this.model = model;
        this.compiled = compiled;
        this.main = compiled.plans().get(model.graph());
        this.intraOp = intraOp;
        this.onClose = onClose;
        boolean concurrent = compiled.eps().stream().allMatch(e -> e.ep().isConcurrentRunSupported());
        this.serial = concurrent ? null : new ReentrantLock();
        List<String> names = new ArrayList<>();
        compiled.eps().forEach(e -> names.add(e.ep().name()));
        this.epNames = List.copyOf(names);
        Map<String, TensorInfo> in = new LinkedHashMap<>();
        Set<String> optional = new HashSet<>();
        for (ValueView v : model.graph().inputs()) {
            in.put(v.name(), v.typeInfo().orElse(new TensorInfo(v.name(), null, null, null)));
            if (v.isInitializer()) {
                optional.add(v.name());
            }
        }
        this.inputs = in;
        this.optionalInputs = optional;
        List<TensorInfo> out = new ArrayList<>();
        for (ValueView v : model.graph().outputs()) {
            out.add(v.typeInfo().orElse(new TensorInfo(v.name(), null, null, null)));
        }
        this.outputs = List.copyOf(out);
    }

    /**
     * Compiles a model with the given EPs and creates the session; on failure nothing is left behind.
     *
     * @param id the session's id
     * @param model the model
     * @param config the session configuration, EP options included
     * @param threads intra-op threads (0 for one per processor)
     * @param bindings the EPs in priority order
     * @param onClose called once the session has released its EPs
     * @return the session
     */
    static InferenceSession create(String id, OnnxModel model, Map<String, String> config, int threads,
                                   List<EpBinding> bindings, Runnable onClose) {
        return create(id, model, config, threads, bindings, null, onClose);
    }

    /**
     * Compiles a model with the given EPs and creates the session, writing a compiled model as {@code generation}
     * says; on failure nothing is left behind.
     *
     * @param id the session's id
     * @param model the model
     * @param config the session configuration, EP options included
     * @param threads intra-op threads (0 for one per processor)
     * @param bindings the EPs in priority order
     * @param generation how to write the compiled model, or {@code null} to follow {@code ep.context_enable} in
     *     {@code config}
     * @param onClose called once the session has released its EPs
     * @return the session
     */
    static InferenceSession create(String id, OnnxModel model, Map<String, String> config, int threads,
                                   List<EpBinding> bindings, EpContextGeneration generation, Runnable onClose) {
        IntraOpPool pool = new IntraOpPool(threads);
        try {
            SessionCompiler.Result compiled = generation == null ? SessionCompiler.compile(model, config, bindings)
                    : SessionCompiler.compile(model, config, bindings, generation);
            return new InferenceSession(id, model, compiled, pool, onClose);
        } catch (RuntimeException | Error e) {
            pool.close();
            throw e;
        }
    }

    /**
     * Creates a session outside an environment, as tests do.
     *
     * @param model the model
     * @param options the session options (configuration and threads)
     * @param bindings the EPs in priority order
     * @param onClose called with the session once it has released its EPs
     * @return the session
     */
    static InferenceSession create(OnnxModel model, io.ortex.api.SessionOptions options, List<EpBinding> bindings,
                                   java.util.function.Consumer<InferenceSession> onClose) {
        InferenceSession[] self = new InferenceSession[1];
        self[0] = create("test", model, Map.copyOf(options.config()), options.intraOpThreads(), bindings,
                () -> onClose.accept(self[0]));
        return self[0];
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String modelSource() {
        return model.path().map(Object::toString).orElse("(bytes)");
    }

    @Override
    public List<TensorInfo> inputs() {
        List<TensorInfo> required = new ArrayList<>();
        for (Map.Entry<String, TensorInfo> e : inputs.entrySet()) {
            if (!optionalInputs.contains(e.getKey())) {
                required.add(e.getValue());
            }
        }
        return required;
    }

    @Override
    public List<TensorInfo> outputs() {
        return outputs;
    }

    @Override
    public Map<String, Tensor> run(Map<String, Tensor> feeds) {
        List<String> names = new ArrayList<>();
        outputs.forEach(o -> names.add(o.name()));
        return run(feeds, names);
    }

    @Override
    public Map<String, Tensor> run(Map<String, Tensor> feeds, Collection<String> outputNames) {
        checkFeeds(feeds);
        for (String name : outputNames) {
            if (outputs.stream().noneMatch(o -> o.name().equals(name))) {
                throw new InvalidArgumentException("the model has no output '" + name + "'");
            }
        }
        enter();
        try {
            if (serial != null) {
                serial.lock();
            }
            try {
                return runMain(feeds, outputNames);
            } finally {
                if (serial != null) {
                    serial.unlock();
                }
            }
        } finally {
            exit();
        }
    }

    private Map<String, Tensor> runMain(Map<String, Tensor> feeds, Collection<String> outputNames) {
        Map<String, String> runConfig = Map.of();
        List<EpInstance> started = new ArrayList<>();
        try {
            for (EpInstance e : compiled.eps()) {
                e.ep().onRunStart(runConfig);
                started.add(e);
            }
            Map<String, Tensor> all = runGraph(main, feeds, new RunContext());
            Map<String, Tensor> result = new LinkedHashMap<>();
            for (String name : outputNames) {
                Tensor t = all.get(name);
                if (t == null) {
                    throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "output '" + name + "' was not computed");
                }
                result.put(name, t);
            }
            return result;
        } finally {
            for (EpInstance e : started) {
                e.ep().onRunEnd(runConfig);
            }
        }
    }

    /** Runs one graph's plan on the given values and returns its outputs, in host memory. */
    private Map<String, Tensor> runGraph(GraphPlan plan, Map<String, Tensor> feeds, RunContext context) {
        Map<String, Tensor> values = new HashMap<>(plan.constants());
        values.putAll(feeds);
        plan.plan().execute(values, context);
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (String name : plan.outputs()) {
            out.put(name, plan.plan().toHost(name, values.get(name)));
        }
        return out;
    }

    /** The kernels' view of one run: the intra-op threads, and nested subgraphs run through their own plans. */
    private final class RunContext implements KernelContext {
        @Override
        public int intraOpThreads() {
            return intraOp.intraOpThreads();
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            intraOp.parallelFor(count, minChunk, body);
        }

        @Override
        public Map<String, Tensor> runSubgraph(GraphView subgraph, Map<String, Tensor> values) {
            GraphPlan plan = subgraph instanceof Graph g ? compiled.plans().get(g) : null;
            if (plan == null) {
                throw new InvalidArgumentException("subgraph '" + subgraph.name() + "' does not belong to session "
                        + id);
            }
            return runGraph(plan, values, this);
        }
    }

    private void checkFeeds(Map<String, Tensor> feeds) {
        for (Map.Entry<String, Tensor> e : feeds.entrySet()) {
            TensorInfo info = inputs.get(e.getKey());
            if (info == null) {
                throw new InvalidArgumentException("the model has no input '" + e.getKey() + "'; its inputs are "
                        + inputs.keySet());
            }
            Tensor t = e.getValue();
            if (t == null) {
                throw new InvalidArgumentException("input '" + e.getKey() + "' is null");
            }
            ElementType want = info.type();
            if (want != null && t.type() != want) {
                throw new InvalidArgumentException("input '" + e.getKey() + "' must be " + want + ", not " + t.type());
            }
            long[] dims = info.dims();
            if (dims != null) {
                if (dims.length != t.rank()) {
                    throw new InvalidArgumentException("input '" + e.getKey() + "' must have rank " + dims.length
                            + " (" + info + "), got shape " + Tensor.shapeString(t.shape()));
                }
                for (int i = 0; i < dims.length; i++) {
                    if (dims[i] >= 0 && dims[i] != t.dim(i)) {
                        throw new InvalidArgumentException("input '" + e.getKey() + "' dimension " + i + " must be "
                                + dims[i] + " (" + info + "), got shape " + Tensor.shapeString(t.shape()));
                    }
                }
            }
        }
        for (String name : inputs.keySet()) {
            if (!optionalInputs.contains(name) && !feeds.containsKey(name)) {
                throw new InvalidArgumentException("input '" + name + "' is missing");
            }
        }
    }

    /** The main graph's plan, for tests of value lifetimes. */
    ExecutionPlan plan() {
        return main.plan();
    }

    @Override
    public List<String> executionProviders() {
        // kept from creation: once the session is closed its EPs are released and must not be called
        return epNames;
    }

    @Override
    public List<NodeAssignment> assignment() {
        return compiled.assignment();
    }

    @Override
    public Map<String, String> modelMetadata() {
        return ModelMetadata.of(model);
    }

    @Override
    public void setEpDynamicOptions(Map<String, String> options) {
        Map<String, String> copy = Map.copyOf(options);
        enter();
        try {
            for (EpInstance e : compiled.eps()) {
                e.ep().setDynamicOptions(copy);
            }
        } finally {
            exit();
        }
    }

    /**
     * Lets a call that uses the EPs in: it holds the read side of the lifecycle lock until {@link #exit()}. Once
     * {@link #close()} has begun, calls are refused at once, so that runs that keep coming cannot starve it.
     */
    private void enter() {
        String failed = failure;
        if (failed != null) {
            throw new EpUnavailableException(failed);
        }
        if (closing.get() || !lifecycle.readLock().tryLock()) {
            throw new OrtexException(ErrorCode.FAIL, "session " + id + (closed ? " is closed" : " is closing"));
        }
        if (closing.get()) {
            lifecycle.readLock().unlock();
            throw new OrtexException(ErrorCode.FAIL, "session " + id + (closed ? " is closed" : " is closing"));
        }
    }

    private void exit() {
        lifecycle.readLock().unlock();
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            awaitClosed();
            return;
        }
        try {
            lifecycle.writeLock().lock();
            try {
                closed = true;
            } finally {
                lifecycle.writeLock().unlock();
            }
            SessionCompiler.release(compiled.eps());
            intraOp.close();
            onClose.run();
        } finally {
            released.countDown();
        }
    }

    /**
     * Fails the session because an EP library it holds was removed: from now on every run throws
     * {@link EpUnavailableException} with the given message; the runs in flight complete; then the session closes,
     * releasing its EPs and its leases. A later {@link #close()} by its owner does nothing more.
     *
     * @param message why the session can no longer run, naming the EP
     */
    void fail(String message) {
        failure = message;
        close();
    }

    /** Waits until the close under way on another thread has released everything. */
    private void awaitClosed() {
        boolean interrupted = false;
        while (true) {
            try {
                released.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "session " + id + " (" + modelSource() + ")";
    }
}
