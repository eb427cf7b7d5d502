package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.OnnxModel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A session of the runtime: the model partitioned among its EPs, each EP's groups compiled, and a plan that runs
 * them. {@link #run} is thread safe: every run has its own value table, and kernels are shared read-only.
 */
final class InferenceSession implements Session {
    private static final System.Logger LOG = System.getLogger(InferenceSession.class.getName());

    private final OnnxModel model;
    private final List<EpInstance> eps;
    private final ExecutionPlan plan;
    private final Map<String, Tensor> constants;
    private final Map<String, TensorInfo> inputs;
    private final Set<String> optionalInputs;
    private final List<TensorInfo> outputs;
    private final List<NodeAssignment> assignment;
    private final IntraOpPool intraOp;
    private final Consumer<InferenceSession> onClose;
    private volatile boolean closed;

    /** An EP created for this session, with the factory that must release it. */
    private record EpInstance(EpBinding binding, ExecutionProvider ep, List<ComputeKernel> kernels) {
    }

    private InferenceSession(OnnxModel model, List<EpInstance> eps, ExecutionPlan plan, Map<String, Tensor> constants,
                             List<NodeAssignment> assignment, IntraOpPool intraOp, Consumer<InferenceSession> onClose) {
        this.model = model;
        this.eps = eps;
        this.plan = plan;
        this.constants = constants;
        this.assignment = assignment;
        this.intraOp = intraOp;
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
     * Creates a session: creates the EPs, partitions the main graph, compiles each EP's groups and builds the plan.
     * On failure every EP created so far is released.
     */
    static InferenceSession create(OnnxModel model, SessionOptions options, List<EpBinding> bindings,
                                   Consumer<InferenceSession> onClose) {
        Map<String, String> config = Map.copyOf(options.config());
        List<EpInstance> created = new ArrayList<>();
        IntraOpPool pool = new IntraOpPool(options.intraOpThreads());
        try {
            List<ExecutionProvider> eps = new ArrayList<>();
            for (EpBinding b : bindings) {
                ExecutionProvider ep = b.factory().createEp(b.devices(), config);
                created.add(new EpInstance(b, ep, new ArrayList<>()));
                eps.add(ep);
            }
            Graph graph = model.graph();
            List<Partitioner.Group> groups = Partitioner.partition(graph, eps,
                    (level, msg) -> LOG.log(level, model.describe() + ": " + msg));
            String prefixHash = modelHash(model);
            List<ExecutionPlan.Compiled> compiled = new ArrayList<>();
            Map<NodeView, String[]> where = new HashMap<>();
            int counter = 0;
            Map<String, Integer> perEp = new HashMap<>();
            for (EpInstance inst : created) {
                List<GraphView> views = new ArrayList<>();
                List<FusedNode> fused = new ArrayList<>();
                List<Partitioner.Group> mine = new ArrayList<>();
                for (Partitioner.Group g : groups) {
                    if (g.ep() != inst.ep()) {
                        continue;
                    }
                    int n = perEp.merge(inst.ep().name(), 1, Integer::sum) - 1;
                    String metadef = inst.ep().name() + "_" + prefixHash + "_" + n;
                    String name = inst.ep().name() + "_" + metadef + "_" + counter++;
                    GroupGraphView view = new GroupGraphView(graph, metadef, g.nodes(), g.options());
                    views.add(view);
                    fused.add(new FusedNodeImpl(name, ExecutionPlan.names(view.inputs()),
                            ExecutionPlan.names(view.outputs())));
                    mine.add(g);
                }
                if (views.isEmpty()) {
                    continue;
                }
                List<ComputeKernel> kernels = inst.ep().compile(views, fused);
                if (kernels == null || kernels.size() != views.size() || kernels.contains(null)) {
                    throw new OrtexException(ErrorCode.FAIL, "EP " + inst.ep().name() + " compiled "
                            + (kernels == null ? "nothing" : kernels.size() + " kernels") + " for " + views.size()
                            + " partitions");
                }
                inst.kernels().addAll(kernels);
                for (int i = 0; i < views.size(); i++) {
                    compiled.add(new ExecutionPlan.Compiled(fused.get(i), inst.ep().name(), kernels.get(i),
                            ExecutionPlan.firstIndex(graph.nodes(), mine.get(i).nodes())));
                    for (NodeView n : mine.get(i).nodes()) {
                        where.put(n, new String[] {inst.ep().name(), fused.get(i).name()});
                    }
                }
            }
            Map<String, Tensor> constants = new HashMap<>();
            for (ValueView v : graph.initializers()) {
                constants.put(v.name(), v.initializer().orElseThrow());
            }
            Set<String> keep = new HashSet<>(constants.keySet());
            for (ValueView v : graph.outputs()) {
                keep.add(v.name());
            }
            ExecutionPlan plan = ExecutionPlan.build(compiled, keep);
            List<NodeAssignment> assignment = new ArrayList<>();
            for (NodeView n : graph.nodes()) {
                String[] w = where.get(n);
                assignment.add(new NodeAssignment(n.displayName(), Partitioner.opName(n), w[0], w[1]));
            }
            return new InferenceSession(model, List.copyOf(created), plan, Collections.unmodifiableMap(constants),
                    List.copyOf(assignment), pool, onClose);
        } catch (RuntimeException e) {
            release(created);
            pool.close();
            throw e;
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
        if (closed) {
            throw new OrtexException(ErrorCode.FAIL, "the session is closed");
        }
        checkFeeds(feeds);
        for (String name : outputNames) {
            if (outputs.stream().noneMatch(o -> o.name().equals(name))) {
                throw new InvalidArgumentException("the model has no output '" + name + "'");
            }
        }
        Map<String, Tensor> values = new HashMap<>(constants);
        values.putAll(feeds);
        plan.execute(values, intraOp);
        Map<String, Tensor> result = new LinkedHashMap<>();
        for (String name : outputNames) {
            Tensor t = values.get(name);
            if (t == null) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "output '" + name + "' was not computed");
            }
            result.put(name, t);
        }
        return result;
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

    /** The session's plan, for tests of value lifetimes. */
    ExecutionPlan plan() {
        return plan;
    }

    @Override
    public List<String> executionProviders() {
        List<String> names = new ArrayList<>();
        eps.forEach(e -> names.add(e.ep().name()));
        return names;
    }

    @Override
    public List<NodeAssignment> assignment() {
        return assignment;
    }

    @Override
    public Map<String, String> modelMetadata() {
        Map<String, String> m = new TreeMap<>(model.metadata());
        var p = model.proto();
        if (!p.getProducerName().isEmpty()) {
            m.put("producer_name", p.getProducerName());
        }
        if (!p.getGraph().getName().isEmpty()) {
            m.put("graph_name", p.getGraph().getName());
        }
        if (!p.getDomain().isEmpty()) {
            m.put("domain", p.getDomain());
        }
        return Collections.unmodifiableMap(m);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        release(eps);
        intraOp.close();
        onClose.accept(this);
    }

    private static void release(List<EpInstance> instances) {
        for (EpInstance inst : instances) {
            for (ComputeKernel k : inst.kernels()) {
                try {
                    k.close();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "closing a kernel of " + inst.ep().name() + " failed", e);
                }
            }
            try {
                inst.binding().factory().releaseEp(inst.ep());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "releasing EP " + inst.ep().name() + " failed", e);
            }
        }
    }
}
