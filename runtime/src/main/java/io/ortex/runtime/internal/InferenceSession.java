package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.RunMemory;
import io.ortex.api.RunOptions;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.ValueCopy;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.TensorAllocator;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.epcontext.EpContextGeneration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session of the runtime: the model partitioned among its EPs, each EP's groups compiled, and one plan per graph.
 * {@link #run} is thread safe: every run has its own value table and kernels are shared read-only; when an EP says
 * its kernels cannot run concurrently, runs are serialized. {@link #close()} refuses new runs at once, waits for the
 * runs in flight, then releases the EPs and the session's leases on their libraries. {@link #migrate} moves it onto
 * other EPs between runs: the runs in flight finish on the old {@link SessionPlan}, the next ones use the new one.
 */
final class InferenceSession implements Session {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.session");
    private final String id;
    private final OnnxModel model;
    private volatile SessionPlan plan;
    private final Map<String, TensorInfo> inputs;
    private final Set<String> optionalInputs;
    private final List<TensorInfo> outputs;
    private final IntraOpPool intraOp;
    private final boolean ownsPool;
    private final SessionProfiler profiler;
    private final Queue<RunArena> arenas = new ConcurrentLinkedQueue<>();
    private final Runnable onClose;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final ReentrantLock migration = new ReentrantLock();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean closed;
    private volatile String failure;
    /** The environment's shared allocators, or {@code null} where the session's plans keep their own. */
    private SharedAllocators allocators;

    InferenceSession(String id, OnnxModel model, SessionCompiler.Result compiled, IntraOpPool intraOp,
                     boolean ownsPool, SessionProfiler profiler, Runnable onClose) {
        this.id = id;
        this.model = model;
        this.plan = new SessionPlan(compiled);
        this.intraOp = intraOp;
        this.ownsPool = ownsPool;
        this.profiler = profiler;
        this.onClose = onClose;
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
     * Compiles a model with the given EPs and creates the session, writing a compiled model as {@code generation}
     * says; on failure nothing is left behind.
     *
     * @param id the session's id
     * @param model the model
     * @param config the session configuration, EP options included
     * @param threads the intra-op threads the session runs on (shared with other sessions, not closed with it)
     * @param profile where to write the session's profile, or {@code null} for no profiling
     * @param bindings the EPs in priority order
     * @param generation how to write the compiled model, or {@code null} to follow {@code ep.context_enable} in
     *     {@code config}
     * @param allocators the environment's shared allocators of EP memories, or {@code null} for the session's own
     * @param prePacks the environment's pre-packed weights, which the session's registered kernels share
     * @param onClose called once the session has released its EPs
     * @return the session
     */
    static InferenceSession create(String id, OnnxModel model, Map<String, String> config, IntraOpPool threads,
                                   Path profile, List<EpBinding> bindings, EpContextGeneration generation,
                                   SharedAllocators allocators, PrePackStore prePacks, Runnable onClose) {
        return create(id, model, config, threads, false, profile, bindings, generation, allocators, prePacks,
                onClose);
    }

    private static InferenceSession create(String id, OnnxModel model, Map<String, String> config,
                                           IntraOpPool pool, boolean ownsPool, Path profile,
                                           List<EpBinding> bindings, EpContextGeneration generation,
                                           SharedAllocators allocators, PrePackStore prePacks,
                                           Runnable onClose) {
        long start = System.nanoTime();
        Map<String, String> epConfig = withThreads(config, pool.intraOpThreads());
        SessionCompiler.Result compiled = SessionCompiler.compile(model, epConfig, bindings,
                generation == null ? EpContextGeneration.fromSessionConfig(model, epConfig) : generation, allocators,
                prePacks);
        // a session that wrote its compiled model out kept the weights in memory until now
        SessionCompiler.releaseInlineData(model, compiled.model());
        SessionProfiler profiler = null;
        if (profile != null) {
            profiler = new SessionProfiler(profile, start);
            profiler.sessionCreated(start, System.nanoTime());
        }
        InferenceSession session = new InferenceSession(id, model, compiled, pool, ownsPool, profiler, onClose);
        session.allocators = allocators;
        return session;
    }

    /** The configuration EPs see: the session's entries and its resolved intra-op thread count. */
    private static Map<String, String> withThreads(Map<String, String> config, int threads) {
        Map<String, String> c = new LinkedHashMap<>(config);
        c.put(EpFactory.SESSION_INTRA_OP_THREADS, Integer.toString(threads));
        return c;
    }

    /**
     * Creates a session outside an environment, as tests do, on intra-op threads of its own.
     *
     * @param model the model
     * @param options the session options (configuration and threads)
     * @param bindings the EPs in priority order
     * @param onClose called with the session once it has released its EPs
     * @return the session
     */
    static InferenceSession create(OnnxModel model, io.ortex.api.SessionOptions options, List<EpBinding> bindings,
                                   java.util.function.Consumer<InferenceSession> onClose) {
        return create(model, options, bindings, new PrePackStore(), onClose);
    }

    /**
     * Creates a session outside an environment, as tests do, sharing pre-packed weights through {@code prePacks}.
     *
     * @param model the model
     * @param options the session options (configuration and threads)
     * @param bindings the EPs in priority order
     * @param prePacks the pre-packed weights shared with other sessions
     * @param onClose called with the session once it has released its EPs
     * @return the session
     */
    static InferenceSession create(OnnxModel model, io.ortex.api.SessionOptions options, List<EpBinding> bindings,
                                   PrePackStore prePacks, java.util.function.Consumer<InferenceSession> onClose) {
        InferenceSession[] self = new InferenceSession[1];
        IntraOpPool pool = new IntraOpPool(options.intraOpThreads());
        try {
            self[0] = create("test", model, Map.copyOf(options.config()), pool, true, options.profilingFile(),
                    bindings, null, null, prePacks, () -> onClose.accept(self[0]));
        } catch (RuntimeException | Error e) {
            pool.close();
            throw e;
        }
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
        return run(feeds, outputNames, Map.of());
    }

    @Override
    public Map<String, Tensor> run(Map<String, Tensor> feeds, Collection<String> outputNames, RunOptions options) {
        return run(feeds, outputNames, Map.copyOf(Objects.requireNonNull(options, "options").config()));
    }

    @Override
    public Map<String, Tensor> run(Map<String, Tensor> feeds, Map<String, Tensor> pinnedOutputs, RunOptions options) {
        Map<String, String> runConfig = Map.copyOf(Objects.requireNonNull(options, "options").config());
        checkFeeds(feeds);
        PinnedOutputs pinned = PinnedOutputs.check(pinnedOutputs, outputs, feeds);
        return pinned.fill(run(feeds, pinned.targets().keySet(), runConfig, pinned));
    }

    private Map<String, Tensor> run(Map<String, Tensor> feeds, Collection<String> outputNames,
                                    Map<String, String> runConfig) {
        checkFeeds(feeds);
        for (String name : outputNames) {
            if (outputs.stream().noneMatch(o -> o.name().equals(name))) {
                throw new InvalidArgumentException("the model has no output " + Names.quote(name));
            }
        }
        return run(feeds, outputNames, runConfig, null);
    }

    /** Runs checked inputs, writing into the pinned outputs where the kernels can ({@code null}: none). */
    private Map<String, Tensor> run(Map<String, Tensor> feeds, Collection<String> outputNames,
                                    Map<String, String> runConfig, PinnedOutputs pinned) {
        enter();
        try {
            SessionPlan p = usePlan();
            try {
                ReentrantLock serial = p.serial();
                if (serial != null) {
                    serial.lock();
                }
                try {
                    return runMain(p, feeds, outputNames, runConfig, pinned);
                } finally {
                    if (serial != null) {
                        serial.unlock();
                    }
                }
            } finally {
                p.endUse();
            }
        } finally {
            exit();
        }
    }

    /**
     * Takes the current plan for one call. A migration that replaces the plan meanwhile makes the call take the new
     * one; once a call holds a plan, that plan's EPs stay until the call ends.
     */
    private SessionPlan usePlan() {
        while (true) {
            SessionPlan p = plan;
            p.beginUse();
            if (p == plan) {
                return p;
            }
            p.endUse();
        }
    }

    /**
     * Runs the main graph once, or through the capturing EP: its replay once it captured the run's graph id, else
     * normal runs until it has (within {@link RunOptions#CAPTURE_RUNS} runs).
     */
    private Map<String, Tensor> runMain(SessionPlan p, Map<String, Tensor> feeds, Collection<String> outputNames,
                                        Map<String, String> runConfig, PinnedOutputs pinned) {
        GraphCapture capture = p.compiled().capture();
        if (capture == null) {
            return runOnce(p, feeds, outputNames, runConfig, pinned);
        }
        int graphId = GraphCapture.graphId(runConfig);
        if (capture.replays(graphId)) {
            Map<String, Tensor> all = capture.ep().replayGraph(graphId, feeds);
            return pick(all == null ? Map.of() : all, outputNames, "the replay of graph " + graphId + " by "
                    + capture.ep().name());
        }
        Map<String, Tensor> result = runOnce(p, feeds, outputNames, runConfig, pinned);
        int runs = 1;
        while (capture.runAgain(graphId, runs)) {
            result = runOnce(p, feeds, outputNames, runConfig, pinned);
            runs++;
        }
        if (capture.fail(graphId)) {
            LOG.warn("session {}: EP {} did not capture graph {} within {} runs; its runs go through the session's "
                    + "kernels", id, capture.ep().name(), graphId, runs);
        }
        return result;
    }

    /** The outputs asked for, in their order. */
    private static Map<String, Tensor> pick(Map<String, Tensor> all, Collection<String> outputNames, String source) {
        Map<String, Tensor> result = new LinkedHashMap<>();
        for (String name : outputNames) {
            Tensor t = all.get(name);
            if (t == null) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "output " + Names.quote(name)
                        + " was not computed" + (source == null ? "" : " by " + source));
            }
            result.put(name, t);
        }
        return result;
    }

    private Map<String, Tensor> runOnce(SessionPlan p, Map<String, Tensor> feeds, Collection<String> outputNames,
                                       Map<String, String> runConfig, PinnedOutputs pinned) {
        List<EpInstance> started = new ArrayList<>();
        RunArena arena = arenas.poll();
        if (arena == null) {
            arena = new RunArena();
        }
        long start = profiler == null ? 0 : System.nanoTime();
        RunStreams streams = p.compiled().memory().streams().isEmpty() ? null : new RunStreams();
        Throwable failed = null;
        try {
            for (EpInstance e : p.compiled().eps()) {
                e.ep().onRunStart(runConfig);
                started.add(e);
            }
            ExecutionPlan.Run run = new ExecutionPlan.Run(new RunContext(p, arena, streams), arena, profiler,
                    streams);
            Map<String, Tensor> all;
            try (RunMemory.Budget budget = RunMemory.open(model.limits())) {
                all = p.main().run(feeds, run, pinned == null ? Map.of() : pinned.targets());
            }
            return pick(all, outputNames, null);
        } catch (RuntimeException | Error e) {
            failed = e;
            throw e;
        } finally {
            try {
                if (streams != null) {
                    finishStreams(streams, failed);
                }
            } finally {
                arena.endRun();
                arenas.offer(arena);
                boolean sync = !"1".equals(runConfig.get(RunOptions.DISABLE_SYNCHRONIZE_EXECUTION_PROVIDERS));
                for (EpInstance e : started) {
                    e.ep().onRunEnd(runConfig, sync);
                }
                if (profiler != null) {
                    profiler.run(start, System.nanoTime());
                }
            }
        }
    }

    /**
     * Ends a run on the session's streams (waits for their work, {@code OnSessionRunEnd}, frees the device values the
     * run left to them); a failure there fails a run that had not failed, and is added to the failure of one that had.
     */
    private static void finishStreams(RunStreams streams, Throwable failed) {
        try {
            streams.finish();
        } catch (RuntimeException e) {
            if (failed == null) {
                throw e;
            }
            failed.addSuppressed(e);
        }
    }

    /**
     * The kernels' view of one run: the intra-op threads, the run's memory, and nested subgraphs run through their
     * own plans.
     */
    private final class RunContext implements KernelContext, ArenaContext {
        private final SessionPlan plan;
        private final RunArena arena;
        private final RunStreams streams;

        RunContext(SessionPlan plan, RunArena arena, RunStreams streams) {
            this.plan = plan;
            this.arena = arena;
            this.streams = streams;
        }

        @Override
        public RunArena arena() {
            return arena;
        }

        @Override
        public int intraOpThreads() {
            return intraOp.intraOpThreads();
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            intraOp.parallelFor(count, minChunk, body);
        }

        @Override
        public Tensor allocate(ElementType type, long... shape) {
            return arena.allocate(type, shape, true);
        }

        @Override
        public Tensor allocateUninitialized(ElementType type, long... shape) {
            return arena.allocate(type, shape, false);
        }

        @Override
        public Optional<TensorAllocator> allocator(MemoryDevice memory) {
            return plan.compiled().memory().allocator(memory);
        }

        @Override
        public Map<String, Tensor> runSubgraph(GraphView subgraph, Map<String, Tensor> values) {
            GraphPlan sub = subgraph instanceof Graph g ? plan.compiled().plans().get(g) : null;
            if (sub == null) {
                throw new InvalidArgumentException("subgraph " + Names.quote(subgraph.name())
                        + " does not belong to session "
                        + id);
            }
            return sub.run(values, new ExecutionPlan.Run(this, arena, profiler, streams));
        }
    }

    private void checkFeeds(Map<String, Tensor> feeds) {
        for (Map.Entry<String, Tensor> e : feeds.entrySet()) {
            TensorInfo info = inputs.get(e.getKey());
            if (info == null) {
                throw new InvalidArgumentException("the model has no input " + Names.quote(e.getKey())
                        + "; its inputs are "
                        + inputs.keySet());
            }
            Tensor t = e.getValue();
            if (t == null) {
                throw new InvalidArgumentException("input " + Names.quote(e.getKey()) + " is null");
            }
            ElementType want = info.type();
            if (want != null && t.type() != want) {
                throw new InvalidArgumentException("input " + Names.quote(e.getKey()) + " must be " + want + ", not "
                        + t.type());
            }
            long[] dims = info.dims();
            if (dims != null) {
                if (dims.length != t.rank()) {
                    throw new InvalidArgumentException("input " + Names.quote(e.getKey()) + " must have rank "
                            + dims.length
                            + " (" + info + "), got shape " + Tensor.shapeString(t.shape()));
                }
                for (int i = 0; i < dims.length; i++) {
                    if (dims[i] >= 0 && dims[i] != t.dim(i)) {
                        throw new InvalidArgumentException("input " + Names.quote(e.getKey()) + " dimension " + i
                                + " must be "
                                + dims[i] + " (" + info + "), got shape " + Tensor.shapeString(t.shape()));
                    }
                }
            }
        }
        for (String name : inputs.keySet()) {
            if (!optionalInputs.contains(name) && !feeds.containsKey(name)) {
                throw new InvalidArgumentException("input " + Names.quote(name) + " is missing");
            }
        }
    }

    /** The model the session runs, after graph optimization; for tests of what it keeps in memory. */
    OnnxModel compiledModel() {
        return plan.compiled().model();
    }

    /** The main graph's plan, for tests of value lifetimes. */
    ExecutionPlan plan() {
        return plan.main().plan();
    }

    @Override
    public Optional<Path> endProfiling() {
        return profiler == null ? Optional.empty() : Optional.of(profiler.write());
    }

    @Override
    public List<String> executionProviders() {
        // kept with the plan: once the session is closed its EPs are released and must not be called
        return plan.epNames();
    }

    @Override
    public List<NodeAssignment> assignment() {
        return plan.compiled().assignment();
    }

    @Override
    public List<ValueCopy> valueCopies() {
        List<ValueCopy> out = new ArrayList<>();
        for (ExecutionPlan.Copy c : plan.compiled().copies()) {
            out.add(c.report());
        }
        return List.copyOf(out);
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
            SessionPlan p = usePlan();
            try {
                for (EpInstance e : p.compiled().eps()) {
                    e.ep().setDynamicOptions(copy);
                }
            } finally {
                p.endUse();
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
            migration.lock();
            try {
                plan.compiled().memory().close();
                SessionCompiler.release(plan.compiled().eps());
            } finally {
                migration.unlock();
            }
            if (ownsPool) {
                intraOp.close();
            }
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

    /**
     * Moves the session onto other EPs between runs: compiles the model again with the given EPs, makes the next
     * runs use them, waits for the runs in flight on the old EPs to finish, then releases the old EPs. The caller has
     * taken leases for the new EPs and gives up those for the old ones afterwards. On failure the session stays on
     * its current EPs and whatever was created for the new ones is released.
     *
     * @param config the session configuration for the new EPs, EP options included
     * @param bindings the new EPs in priority order
     * @return {@code false}, having changed nothing, when the session is closing or closed
     * @throws RuntimeException when the model cannot be compiled for the new EPs
     */
    boolean migrate(Map<String, String> config, List<EpBinding> bindings) {
        migration.lock();
        try {
            if (closing.get()) {
                return false;
            }
            SessionPlan next = new SessionPlan(SessionCompiler.compile(model,
                    withThreads(config, intraOp.intraOpThreads()), bindings, null, allocators,
                    plan.compiled().prePacks()));
            SessionPlan old = plan;
            plan = next;
            old.retire();
            old.compiled().memory().close();
            SessionCompiler.release(old.compiled().eps());
            return true;
        } finally {
            migration.unlock();
        }
    }

    /** Waits until the session is closed and has released its EPs, however long its runs in flight take. */
    void awaitReleased() {
        awaitClosed();
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
