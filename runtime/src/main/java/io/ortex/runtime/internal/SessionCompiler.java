package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpContextPayload;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelRegistry;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.epcontext.CompatibilityCheck;
import io.ortex.runtime.internal.epcontext.CompiledPartition;
import io.ortex.runtime.internal.epcontext.EpContextGeneration;
import io.ortex.runtime.internal.epcontext.EpContextSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a model and a session's EPs into what the session runs: creates the EPs, partitions the main graph and every
 * nested subgraph (subgraphs first, as ONNX Runtime does), has each EP compile all of its groups in one call, and
 * builds one {@link GraphPlan} per graph; before any of that it judges a compiled model's compatibility strings, and
 * after compiling it writes the compiled model (EPContext) when asked. On failure, every EP created so far is
 * released.
 */
final class SessionCompiler {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.session");

    /**
     * The compiled session.
     *
     * @param model the model as compiled, after graph optimization
     * @param eps the EPs in priority order
     * @param plans one plan per graph, by identity
     * @param assignment which EP runs each node
     * @param capture the EP that captures and replays the graph, or {@code null}
     * @param memory the session's EP memories and their shared allocators
     * @param prePacks where the session's kernels share pre-packed weights (its environment's)
     */
    record Result(OnnxModel model, List<EpInstance> eps, Map<Graph, GraphPlan> plans,
                  List<NodeAssignment> assignment, GraphCapture capture, SessionMemory memory,
                  PrePackStore prePacks) {
        /** The main graph's plan. */
        GraphPlan main() {
            return plans.get(model.graph());
        }

        /** Every copy between memories the session's plans make, the main graph's first. */
        List<ExecutionPlan.Copy> copies() {
            List<ExecutionPlan.Copy> out = new ArrayList<>(main().plan().copies());
            for (GraphPlan p : plans.values()) {
                if (p != main()) {
                    out.addAll(p.plan().copies());
                }
            }
            return out;
        }
    }

    private SessionCompiler() {
    }

    /**
     * Compiles a session, writing a compiled model when its configuration says {@code ep.context_enable=1}.
     *
     * @param model the model
     * @param config the session configuration
     * @param bindings the EPs in priority order
     * @return the compiled session
     */
    static Result compile(OnnxModel model, Map<String, String> config, List<EpBinding> bindings) {
        return compile(model, config, bindings, EpContextGeneration.fromSessionConfig(model, config));
    }

    /**
     * Compiles a session with allocators of its own, given back when it is released, and pre-packed weights of its
     * own; see {@link #compile(OnnxModel, Map, List, EpContextGeneration, SharedAllocators, PrePackStore)}.
     *
     * @param source the model
     * @param config the session configuration
     * @param bindings the EPs in priority order
     * @param generation how to write the compiled model, or {@code null} for none
     * @return the compiled session
     */
    static Result compile(OnnxModel source, Map<String, String> config, List<EpBinding> bindings,
                          EpContextGeneration generation) {
        return compile(source, config, bindings, generation, null, new PrePackStore());
    }

    /**
     * Compiles a session: checks the model's compatibility strings, creates the EPs, partitions, compiles, and
     * writes the compiled model when {@code generation} is given. Its registered kernels share pre-packed weights
     * through {@code prePacks} when the configuration says {@code session.use_env_allocators=1}.
     *
     * @param source the model
     * @param config the session configuration
     * @param bindings the EPs in priority order
     * @param generation how to write the compiled model, or {@code null} for none
     * @param shared the environment's shared allocators, or {@code null} for allocators of the session's own
     * @param prePacks the environment's pre-packed weights
     * @return the compiled session
     */
    static Result compile(OnnxModel source, Map<String, String> config, List<EpBinding> bindings,
                          EpContextGeneration generation, SharedAllocators shared, PrePackStore prePacks) {
        OnnxModel optimized = SessionOptimization.apply(source, config, bindings);
        if (generation == null) {
            // nothing below writes the model out: the EPs may as well read the large weights from the file, so
            // that their in-memory copies never meet what the EPs make of them
            releaseInlineData(source, optimized);
        }
        EpContextSettings settings = EpContextSettings.of(config);
        List<CompatibilityCheck.Candidate> candidates = new ArrayList<>();
        for (EpBinding b : bindings) {
            candidates.add(new CompatibilityCheck.Candidate(b.factory(),
                    b.devices().stream().map(SupportedDevice::device).toList()));
        }
        CompatibilityCheck.check(optimized.metadata(), optimized.describe(), candidates, settings.failOnSuboptimal());
        if (generation != null) {
            generation.checkBeforePartitioning(optimized);
        }
        List<EpInstance> created = new ArrayList<>();
        SessionMemory memory = null;
        // every EP sees the same entries and none can change what the next one sees
        Map<String, String> frozen = Collections.unmodifiableMap(new LinkedHashMap<>(config));
        try {
            List<ExecutionProvider> eps = new ArrayList<>();
            for (EpBinding b : bindings) {
                ExecutionProvider ep = b.factory().createEp(b.devices(), frozen);
                if (ep == null) {
                    throw new OrtexException(ErrorCode.FAIL, "EP factory " + b.factory().name() + " created no EP");
                }
                created.add(new EpInstance(b, ep, new ArrayList<>()));
                eps.add(ep);
            }
            OnnxModel model = SessionLayout.apply(optimized, eps, frozen, (level, msg) -> LOG.atLevel(level).log(
                    "{}: {}", optimized.describe(), msg));
            List<Graph> graphs = new ArrayList<>();
            collect(model.graph(), graphs);
            Map<Graph, List<Partitioner.Group>> groups = new IdentityHashMap<>();
            ResourceBudgets budgets = ResourceBudgets.of(eps, frozen);
            for (Graph g : graphs) {
                groups.put(g, Partitioner.partition(g, eps, budgets, (level, msg) -> LOG.atLevel(level).log(
                        "{}: {}", model.describe(), msg)));
            }
            GraphCapture capture = GraphCapture.of(eps, groups, model.describe());
            Map<Graph, List<ExecutionPlan.Compiled>> compiled = new IdentityHashMap<>();
            Map<NodeView, String[]> where = new HashMap<>();
            Path contextFolder = settings.contextFolder(model.path().orElse(null));
            List<CompiledGroup> done = compileAll(model, config, created, graphs, groups, compiled, where,
                    contextFolder, generation, new RegistryKernels(frozen, prePacks, created));
            if (generation != null) {
                generation.finish(model, savedPartitions(model, done), compatibility(model, created));
            }
            memory = SessionMemory.of(created, shared, frozen);
            ExecutionPlan.Transfers transfers = transfers(created, memory);
            Map<Graph, GraphPlan> plans = new IdentityHashMap<>();
            for (Graph g : graphs) {
                plans.put(g, plan(g, compiled.getOrDefault(g, List.of()), transfers, memory));
            }
            List<NodeAssignment> assignment = new ArrayList<>();
            assign(model.graph(), "", where, assignment);
            return new Result(model, List.copyOf(created), Collections.unmodifiableMap(plans),
                    List.copyOf(assignment), capture, memory, prePacks);
        } catch (RuntimeException e) {
            if (memory != null) {
                memory.close();
            }
            EpInstance stillCompiling = e instanceof EpFailure f ? f.abandoned() : null;
            release(created.stream().filter(i -> i != stillCompiling).toList());
            throw e;
        }
    }

    /** A group an EP compiled: where it lives, its fused node, its nodes and its kernel. */
    private record CompiledGroup(Graph owner, ExecutionProvider ep, FusedNode fused, List<NodeView> nodes,
                                 ComputeKernel kernel) {
    }

    /**
     * Asks the kernels of the main graph's groups for their EPContext payloads. Groups in nested subgraphs keep their
     * nodes in the compiled model (and are compiled again when it is loaded), as ONNX Runtime writes only the main
     * graph's EPContext nodes.
     */
    /**
     * Lets a model and its optimized form read their large inline initializers from the model file again when they
     * need them rather than keep a copy in memory; see {@link OnnxModel#releaseInlineData}.
     *
     * @param source the model as read
     * @param optimized the model after graph optimization, possibly {@code source} itself
     */
    static void releaseInlineData(OnnxModel source, OnnxModel optimized) {
        long bytes = optimized.releaseInlineData();
        if (optimized != source) {
            bytes += source.releaseInlineData();
        }
        if (bytes > 0) {
            LOG.debug("{}: {} bytes of initializer data left in the file, read again when needed",
                    source.describe(), bytes);
        }
    }

    private static List<CompiledPartition> savedPartitions(OnnxModel model, List<CompiledGroup> done) {
        List<CompiledPartition> out = new ArrayList<>();
        for (CompiledGroup g : done) {
            if (g.owner() != model.graph()) {
                continue;
            }
            Optional<EpContextPayload> payload = g.kernel().epContext();
            if (payload != null && payload.isPresent()) {
                out.add(new CompiledPartition(g.ep().name(), g.fused(), g.nodes(), payload.get()));
            }
        }
        return out;
    }

    /** Collects each EP's compatibility string; an EP that fails to give one is logged and left out. */
    private static Map<String, String> compatibility(OnnxModel model, List<EpInstance> eps) {
        Map<String, String> out = new LinkedHashMap<>();
        for (EpInstance inst : eps) {
            try {
                Optional<String> info = inst.ep().compatibilityInfo(model.graph());
                if (info != null && info.isPresent() && !info.get().isEmpty()) {
                    out.put(inst.ep().name(), info.get());
                }
            } catch (RuntimeException e) {
                LOG.warn("EP {} failed to give its compatibility info", inst.ep().name(), e);
            }
        }
        return out;
    }

    /** Lists a graph's nested subgraphs before the graph itself. */
    private static void collect(Graph g, List<Graph> out) {
        for (NodeView n : g.nodes()) {
            for (GraphView sub : n.subgraphs().values()) {
                collect((Graph) sub, out);
            }
        }
        out.add(g);
    }

    private static List<CompiledGroup> compileAll(OnnxModel model, Map<String, String> config, List<EpInstance> eps,
                                                  List<Graph> graphs,
                                                  Map<Graph, List<Partitioner.Group>> groups,
                                                  Map<Graph, List<ExecutionPlan.Compiled>> compiled,
                                                  Map<NodeView, String[]> where, Path contextFolder,
                                                  EpContextGeneration generation, RegistryKernels registered) {
        String hash = modelHash(model);
        long timeoutMillis = EpCompileCall.timeoutMillis(config);
        int counter = 0;
        int total = groups.values().stream().mapToInt(List::size).sum();
        int finished = 0;
        if (generation != null) {
            generation.progress(0, total);
        }
        List<CompiledGroup> done = new ArrayList<>();
        Map<Graph, Map<NodeView, Integer>> positions = new IdentityHashMap<>();
        for (EpInstance inst : eps) {
            ExecutionProvider ep = inst.ep();
            KernelRegistry registry = ep.kernelRegistry().orElse(null);
            List<GroupGraphView> views = new ArrayList<>();
            List<FusedNode> fused = new ArrayList<>();
            List<Graph> owners = new ArrayList<>();
            List<Partitioner.Group> mine = new ArrayList<>();
            int n = 0;
            for (Graph g : graphs) {
                Map<NodeView, Integer> order = positions.computeIfAbsent(g, GroupGraphView::positions);
                for (Partitioner.Group group : groups.get(g)) {
                    if (group.ep() != ep) {
                        continue;
                    }
                    String metadef = ep.name() + "_" + hash + "_" + n++;
                    String name = ep.name() + "_" + metadef + "_" + counter++;
                    GroupGraphView view = new GroupGraphView(g, metadef, group.nodes(), group.options(),
                            contextFolder, order);
                    if (registry != null && group.nodes().size() == 1) {
                        // a node claimed alone runs through the EP's registered kernel, not a compiled partition
                        FusedNode step = new FusedNodeImpl(name, ExecutionPlan.names(view.inputs()),
                                ExecutionPlan.names(view.outputs()));
                        RegistryKernel kernel = registered.create(ep, registry, g, view, step);
                        inst.kernels().add(kernel);
                        compiled.computeIfAbsent(g, k -> new ArrayList<>()).add(new ExecutionPlan.Compiled(step,
                                ep.name(), memory(ep), kernel, view.firstPosition(), ExecutionPlan.ops(group.nodes())));
                        where.put(group.nodes().get(0), new String[] {ep.name(), name});
                        finished++;
                        continue;
                    }
                    views.add(view);
                    fused.add(new FusedNodeImpl(name, ExecutionPlan.names(view.inputs()),
                            ExecutionPlan.names(view.outputs())));
                    owners.add(g);
                    mine.add(group);
                }
            }
            if (views.isEmpty()) {
                continue;
            }
            List<ComputeKernel> kernels = EpCompileCall.compile(inst, List.copyOf(views), fused, timeoutMillis);
            if (kernels == null || kernels.size() != views.size() || kernels.contains(null)) {
                if (kernels != null) {
                    inst.kernels().addAll(kernels.stream().filter(k -> k != null).toList());
                }
                throw new OrtexException(ErrorCode.FAIL, "EP " + ep.name() + " compiled "
                        + (kernels == null ? "nothing" : kernels.size() + " kernels") + " for " + views.size()
                        + " partitions");
            }
            inst.kernels().addAll(kernels);
            MemoryDevice device = memory(ep);
            for (int i = 0; i < views.size(); i++) {
                Graph g = owners.get(i);
                compiled.computeIfAbsent(g, k -> new ArrayList<>()).add(new ExecutionPlan.Compiled(fused.get(i),
                        ep.name(), device, kernels.get(i), views.get(i).firstPosition(),
                        ExecutionPlan.ops(mine.get(i).nodes())));
                for (NodeView node : mine.get(i).nodes()) {
                    where.put(node, new String[] {ep.name(), fused.get(i).name()});
                }
                done.add(new CompiledGroup(g, ep, fused.get(i), views.get(i).nodes(), kernels.get(i)));
            }
            finished += views.size();
            if (generation != null) {
                generation.progress(finished, total);
            }
        }
        return done;
    }

    private static MemoryDevice memory(ExecutionProvider ep) {
        return ep.memoryDevice() == null ? MemoryDevice.CPU : ep.memoryDevice();
    }

    /** Finds, among the session's EP factories, one whose data transfer copies between two memory devices. */
    private static ExecutionPlan.Transfers transfers(List<EpInstance> eps, SessionMemory memory) {
        return new ExecutionPlan.Transfers() {
            @Override
            public DataTransfer find(MemoryDevice source, MemoryDevice target) {
                for (EpInstance inst : eps) {
                    DataTransfer t = inst.binding().factory().dataTransfer().orElse(null);
                    if (t != null && t.canCopy(source, target)) {
                        return t;
                    }
                }
                throw new OrtexException(ErrorCode.FAIL, "no EP of the session can copy tensors from " + source
                        + " to " + target);
            }

            @Override
            public ExecutionPlan.Memory memory(MemoryDevice device) {
                return memory.describe(device);
            }

            @Override
            public SyncStream stream(MemoryDevice device) {
                return memory.stream(device);
            }
        };
    }

    private static GraphPlan plan(Graph g, List<ExecutionPlan.Compiled> compiled, ExecutionPlan.Transfers transfers,
                                  SessionMemory memory) {
        Set<String> keep = new HashSet<>();
        Set<String> fixed = new HashSet<>();
        for (ValueView v : g.initializers()) {
            keep.add(v.name());
            fixed.add(v.name());
        }
        // an initializer that is also a graph input can be fed in a run: it is copied in each run that reads it
        for (ValueView v : g.inputs()) {
            fixed.remove(v.name());
        }
        List<String> outputs = new ArrayList<>();
        for (ValueView v : g.outputs()) {
            keep.add(v.name());
            outputs.add(v.name());
        }
        ExecutionPlan plan = PlanBuilder.build(compiled, keep, fixed, outputs, transfers);
        InplacePlanner.mark(plan, keep);
        // only the initializers a step reads (or a graph output is) are decoded: weights an EP took into its own
        // compiled form (dropped from its fused node's inputs) are not held twice
        Map<String, Tensor> constants = new HashMap<>();
        Map<String, Tensor> byName = new HashMap<>();
        for (ValueView v : g.initializers()) {
            if (plan.slot(v.name()) >= 0) {
                Tensor t = v.initializer().orElseThrow();
                byName.put(v.name(), t);
                if (!plan.isCopiedOnly(v.name())) {
                    constants.put(v.name(), t);
                }
            }
        }
        // initializers an EP reads in its own memory are copied there once, now, into its read-only memory
        for (ExecutionPlan.Copy copy : plan.initializerCopies()) {
            Tensor t = copy.apply(byName.get(copy.value()));
            memory.holdConstant(t);
            constants.put(plan.slotName(copy.targetSlot()), t);
        }
        return new GraphPlan(plan, Collections.unmodifiableMap(constants), List.copyOf(outputs));
    }

    /** Lists the assignment of a graph's nodes, then of its subgraphs' nodes under {@code node/attribute/}. */
    private static void assign(Graph g, String prefix, Map<NodeView, String[]> where, List<NodeAssignment> out) {
        for (NodeView n : g.nodes()) {
            String[] w = where.get(n);
            out.add(new NodeAssignment(prefix + n.displayName(), Partitioner.opName(n), w[0], w[1]));
        }
        for (NodeView n : g.nodes()) {
            for (Map.Entry<String, GraphView> sub : n.subgraphs().entrySet()) {
                assign((Graph) sub.getValue(), prefix + n.displayName() + "/" + sub.getKey() + "/", where, out);
            }
        }
    }

    /** A short deterministic hash of the model, as ONNX Runtime uses in fused-node names. */
    private static String modelHash(OnnxModel model) {
        StringBuilder key = new StringBuilder();
        if (model.path().isPresent()) {
            key.append(model.path().get());
        } else {
            model.graph().inputs().forEach(v -> key.append(v.name()).append(','));
            model.graph().nodes().forEach(n -> n.outputs().forEach(v -> key.append(v == null ? "" : v.name())));
        }
        int h = 0x811c9dc5;
        for (int i = 0; i < key.length(); i++) {
            h = (h ^ key.charAt(i)) * 0x01000193;
        }
        return Integer.toUnsignedString(h);
    }

    /** Closes the kernels and releases the EPs, logging rather than throwing. */
    static void release(List<EpInstance> instances) {
        for (EpInstance inst : instances) {
            for (ComputeKernel k : inst.kernels()) {
                try {
                    k.close();
                } catch (RuntimeException e) {
                    LOG.warn("closing a kernel of {} failed", inst.ep().name(), e);
                }
            }
            try {
                inst.binding().factory().releaseEp(inst.ep());
            } catch (RuntimeException e) {
                LOG.warn("releasing EP {} failed", inst.ep().name(), e);
            }
        }
    }
}
