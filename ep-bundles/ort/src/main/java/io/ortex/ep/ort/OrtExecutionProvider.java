package io.ortex.ep.ort;

import ai.onnxruntime.OrtException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.EpContextPayload;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An EP instance backed by ONNX Runtime, for one session: the ONNX Runtime EP itself, or a plugin EP registered
 * through the bridge (then its devices are appended to every ONNX Runtime session, which places on ONNX Runtime's
 * CPU EP what the plugin does not take).
 *
 * <p>{@link #getCapability}: in the main graph (control-flow nodes are claimed whole, with their subgraphs), the nodes
 * no earlier EP took, of the domains and opsets ONNX Runtime supports ({@link OrtOpsets}), are split into convex
 * connected groups ({@link GroupPlanner}); each group is tried on ONNX Runtime ({@link PartitionProbe}), a node it
 * refuses is left out and the groups are planned again, and the groups it takes are claimed with
 * {@code dropConstantInitializers=true} (ONNX Runtime holds the weights). The sessions opened while trying are kept
 * for {@link #compile}, so a partition is opened once. EPContext nodes whose {@code source} is this EP are claimed one
 * by one. Thread safe for concurrent runs; getCapability and compile are called by one thread.
 */
final class OrtExecutionProvider implements ExecutionProvider {
    /** The most sessions tried per graph before the EP settles for the groups found so far. */
    static final int MAX_PROBES = 64;

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.ep.ort");
    private static final FusionOptions DROP_CONSTANTS = new FusionOptions(true);

    private final String name;
    private final SessionMaker maker;
    private final CompatibilityInfo compatibility;
    private final Map<String, PartitionSession> tried = new LinkedHashMap<>();
    private final List<OrtKernel> kernels = new ArrayList<>();
    private ElementTypes types;

    /**
     * Creates the EP.
     *
     * @param name the Ortex EP name
     * @param maker opens its ONNX Runtime sessions
     * @param compatibility what its compiled partitions are fit for, or {@code null} when it writes no EPContext
     *     payloads
     */
    OrtExecutionProvider(String name, SessionMaker maker, CompatibilityInfo compatibility) {
        this.name = name;
        this.maker = maker;
        this.compatibility = compatibility;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void getCapability(GraphView graph, GraphSupport support) {
        if (graph.parentNode().isPresent()) {
            return;
        }
        for (NodeView n : graph.nodes()) {
            if (EpContextNode.isEpContext(n) && EpContextNode.sourceOf(n).orElse("").equals(name)
                    && support.assignedEp(n).isEmpty()) {
                support.addNodesToFuse(List.of(n), DROP_CONSTANTS);
            }
        }
        Optional<String> opsets = OrtOpsets.unsupported(graph.opsetImports());
        if (opsets.isPresent()) {
            LOG.info("{} takes no node: {}", name, opsets.get());
            return;
        }
        types = ElementTypes.of(graph);
        PartitionProbe probe = new PartitionProbe(maker, types);
        Set<NodeView> refused = new HashSet<>();
        Predicate<NodeView> candidate = n -> !refused.contains(n) && support.assignedEp(n).isEmpty()
                && OrtOpsets.supports(n);
        int probes = 0;
        List<List<NodeView>> groups;
        plan:
        while (true) {
            groups = GroupPlanner.plan(graph.nodes(), candidate);
            for (List<NodeView> g : groups) {
                String key = key(g);
                if (tried.containsKey(key)) {
                    continue;
                }
                if (probes++ >= MAX_PROBES) {
                    LOG.warn("{} stops trying partitions after {} sessions; the nodes not yet tried go to other EPs",
                            name, MAX_PROBES);
                    groups = groups.stream().filter(x -> tried.containsKey(key(x))).toList();
                    break plan;
                }
                PartitionProbe.Outcome outcome = probe.probe(graph, g);
                if (outcome.accepted()) {
                    tried.put(key, outcome.session());
                    continue;
                }
                List<NodeView> out = outcome.refused().isEmpty() ? culpritByPrefix(graph, g, probe)
                        : outcome.refused();
                LOG.debug("{} leaves {} to other EPs: {}", name, names(out), outcome.message());
                refused.addAll(out);
                continue plan;
            }
            break;
        }
        for (List<NodeView> g : groups) {
            support.addNodesToFuse(g, DROP_CONSTANTS);
        }
    }

    /**
     * Finds the node at fault when ONNX Runtime refused a group without naming one: the last node of the shortest
     * prefix (in topological order, so itself convex) that ONNX Runtime refuses, found by bisection.
     */
    private List<NodeView> culpritByPrefix(GraphView graph, List<NodeView> group, PartitionProbe probe) {
        int good = 0;
        int bad = group.size();
        while (bad - good > 1) {
            int mid = (good + bad) / 2;
            PartitionProbe.Outcome o = probe.probe(graph, group.subList(0, mid));
            if (o.accepted()) {
                o.session().close();
                good = mid;
            } else {
                bad = mid;
            }
        }
        return List.of(group.get(bad - 1));
    }

    @Override
    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
        List<ComputeKernel> out = new ArrayList<>();
        try {
            for (int i = 0; i < graphs.size(); i++) {
                GraphView g = graphs.get(i);
                FusedNode f = fusedNodes.get(i);
                OrtKernel k = isCompiled(g) ? fromContext(g, f) : fromNodes(g, f);
                kernels.add(k);
                out.add(k);
            }
            return out;
        } finally {
            closeTried();
        }
    }

    private boolean isCompiled(GraphView g) {
        return g.nodes().size() == 1 && EpContextNode.isEpContext(g.nodes().get(0));
    }

    private OrtKernel fromContext(GraphView g, FusedNode f) {
        EpContextNode node = g.epContext(g.nodes().get(0));
        String format = node.notes().startsWith("format=") ? node.notes().substring("format=".length()) : "onnx";
        if (!format.equals("ort") && !format.equals("onnx")) {
            throw new InvalidModelException("EPContext node '" + node.name() + "' of " + name + " has payload format '"
                    + format + "'; expected ort or onnx");
        }
        try {
            PartitionSession s = maker.openCompiled(node.payload(), format);
            return new OrtKernel(f.name(), s, f.inputNames(), f.outputNames(), null);
        } catch (OrtException e) {
            throw new InvalidModelException(ErrorCode.INVALID_GRAPH, "EPContext node '" + node.name() + "' of " + name
                    + ": ONNX Runtime cannot load its compiled partition: " + OrtRuntime.message(e), e);
        }
    }

    private OrtKernel fromNodes(GraphView g, FusedNode f) {
        PartitionSession s = tried.remove(key(g.nodes()));
        if (s == null) {
            ModelExport export = g.exportModel(ModelExportOptions.DEFAULT.withInputElementTypes(inputTypes(g)));
            try {
                s = maker.open(export.bytes(), export.externalDataFolder().orElse(null));
            } catch (OrtException e) {
                throw new OrtexException(ErrorCode.FAIL, name + " cannot compile partition " + f.name() + ": "
                        + OrtRuntime.message(e), e);
            }
        }
        EpContextPayload payload = s.optimizedModel() == null || compatibility == null ? null
                : new EpContextPayload(s.optimizedModel(),
                compatibility.ortVersion(), compatibility.arch(), "format=" + compatibility.format());
        return new OrtKernel(f.name(), s, f.inputNames(), f.outputNames(), payload);
    }

    private Map<String, io.ortex.api.ElementType> inputTypes(GraphView g) {
        Map<String, io.ortex.api.ElementType> in = new LinkedHashMap<>();
        if (types != null) {
            g.inputs().forEach(v -> {
                io.ortex.api.ElementType t = types.of(v.name());
                if (t != null) {
                    in.put(v.name(), t);
                }
            });
        }
        return in;
    }

    @Override
    public Optional<String> compatibilityInfo(GraphView graph) {
        return Optional.ofNullable(compatibility).map(c -> c.encode(name));
    }

    /** Closes the sessions tried for groups that were not compiled, and every kernel's session. */
    void close() {
        closeTried();
        synchronized (kernels) {
            kernels.forEach(OrtKernel::close);
            kernels.clear();
        }
    }

    private void closeTried() {
        tried.values().forEach(PartitionSession::close);
        tried.clear();
    }

    /** Identifies a group by its node ids, whatever their order. */
    private static String key(List<NodeView> nodes) {
        return new TreeSet<>(nodes.stream().map(NodeView::id).toList()).toString();
    }

    private static String names(List<NodeView> nodes) {
        return nodes.stream().map(NodeView::displayName).limit(5).collect(Collectors.joining(", ", "[", "]"));
    }
}
