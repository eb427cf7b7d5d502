package io.ortex.runtime.internal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.ModelExporter;
import io.ortex.onnx.NodeGroup;
import io.ortex.onnx.Node;
import io.ortex.runtime.internal.epcontext.EpContextReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The graph an EP compiles for one claimed group: the group's nodes in topological order; as inputs, the values the
 * group reads from outside (constant initializers left out when the EP asked to drop them); as outputs, the values
 * it produces that a node outside the group, or the graph's caller, reads. It reads the EPContext nodes among its
 * nodes for the EP ({@link #epContext}), resolving context binary files against the context folder it was given.
 */
final class GroupGraphView implements GraphView {
    private final Graph graph;
    private final List<NodeView> nodes;
    private final List<ValueView> inputs;
    private final List<ValueView> outputs;
    private final String name;
    private final Path contextFolder;
    private final int firstPosition;

    /**
     * Builds the view of one group in time linear in the group's size and the edges that touch it.
     *
     * @param graph the graph the group belongs to
     * @param name the view's name
     * @param groupNodes the group's nodes, in any order
     * @param options the EP's fusion options
     * @param contextFolder the folder context binary files are resolved against, or {@code null}
     * @param positions each node's position in the graph's topological order
     */
    GroupGraphView(Graph graph, String name, List<NodeView> groupNodes, FusionOptions options, Path contextFolder,
                   Map<NodeView, Integer> positions) {
        this.graph = graph;
        this.name = name;
        this.contextFolder = contextFolder;
        Set<NodeView> members;
        List<NodeView> ordered;
        if (groupNodes.size() == 1) {
            // the common case of a fallback EP's single-node claims (nodes compare by identity)
            members = Set.of(groupNodes.get(0));
            ordered = List.of(groupNodes.get(0));
        } else {
            members = Collections.newSetFromMap(new IdentityHashMap<>());
            members.addAll(groupNodes);
            ordered = new ArrayList<>(members);
            ordered.sort(Comparator.comparingInt(positions::get));
        }
        this.nodes = Collections.unmodifiableList(ordered);
        this.firstPosition = ordered.isEmpty() ? Integer.MAX_VALUE : positions.get(ordered.get(0));
        List<ValueView> in = new ArrayList<>();
        Set<ValueView> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (NodeView n : ordered) {
            for (ValueView v : concat(n.inputs(), n.implicitInputs())) {
                // a value made inside the group is not one of its inputs (values of outer graphs have no producer)
                if (v != null && !v.producer().map(members::contains).orElse(false)
                        && !(options.dropConstantInitializers() && v.isConstantInitializer()) && seen.add(v)) {
                    in.add(v);
                }
            }
        }
        this.inputs = List.copyOf(in);
        List<ValueView> out = new ArrayList<>();
        for (NodeView n : ordered) {
            for (ValueView v : n.outputs()) {
                if (v != null && (v.isGraphOutput() || readOutside(v, members))) {
                    out.add(v);
                }
            }
        }
        this.outputs = List.copyOf(out);
    }

    /** Tells whether a node outside the group reads a value (its consumers are the nodes of its own graph). */
    private static boolean readOutside(ValueView v, Set<NodeView> members) {
        for (NodeView c : v.consumers()) {
            if (!members.contains(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Numbers a graph's nodes in its topological order, for views and plans that order groups.
     *
     * @param graph the graph
     * @return each node's position
     */
    static Map<NodeView, Integer> positions(GraphView graph) {
        List<NodeView> all = graph.nodes();
        Map<NodeView, Integer> positions = new IdentityHashMap<>(all.size() * 2);
        for (int i = 0; i < all.size(); i++) {
            positions.put(all.get(i), i);
        }
        return positions;
    }

    /**
     * Gives the position of the group's first node in the graph's topological order.
     *
     * @return the position
     */
    int firstPosition() {
        return firstPosition;
    }

    private static List<ValueView> concat(List<ValueView> a, List<ValueView> b) {
        if (b.isEmpty()) {
            return a;
        }
        List<ValueView> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<NodeView> nodes() {
        return nodes;
    }

    @Override
    public List<ValueView> inputs() {
        return inputs;
    }

    @Override
    public List<ValueView> outputs() {
        return outputs;
    }

    @Override
    public List<ValueView> initializers() {
        List<ValueView> inits = new ArrayList<>();
        for (ValueView v : inputs) {
            if (v.isInitializer()) {
                inits.add(v);
            }
        }
        return inits;
    }

    @Override
    public Optional<ValueView> value(String valueName) {
        return graph.value(valueName);
    }

    @Override
    public Map<String, Integer> opsetImports() {
        return graph.opsetImports();
    }

    @Override
    public long irVersion() {
        return graph.irVersion();
    }

    @Override
    public Optional<Path> modelPath() {
        return graph.modelPath();
    }

    @Override
    public Optional<NodeView> parentNode() {
        return Optional.empty();
    }

    @Override
    public Map<String, String> modelMetadata() {
        return graph.modelMetadata();
    }

    /** {@inheritDoc} The nodes must be among this group's. */
    @Override
    public GraphView viewOf(List<NodeView> subset) {
        for (NodeView n : subset) {
            if (!nodes.contains(n)) {
                throw new InvalidArgumentException("node " + Names.quote(n.displayName()) + " is not a node of "
                        + Names.quote(name));
            }
        }
        return new NodeGroup(graph, name, subset, true);
    }

    @Override
    public ModelExport exportModel(ModelExportOptions options) {
        return ModelExporter.export(graph, name, nodes, inputs, outputs, options);
    }

    @Override
    public EpContextNode epContext(NodeView node) {
        if (!nodes.contains(node) || !(node instanceof Node n)) {
            throw new InvalidArgumentException("node " + Names.quote(node.displayName()) + " is not a node of " + name);
        }
        return EpContextReader.read(n, contextFolder);
    }
}
