package io.ortex.onnx;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Some nodes of a {@link Graph} seen as a graph of their own: the nodes in the graph's topological order; as
 * inputs, the values they read from outside the set (constant initializers left out when asked); as outputs, the
 * values they produce that a node outside the set, or the graph's caller, reads. Immutable; safe to read from many
 * threads. The runtime extends it with what an EP reads while compiling a group (its EPContext nodes).
 */
public class NodeGroup implements GraphView {
    private final Graph graph;
    private final String name;
    private final List<NodeView> nodes;
    private final List<ValueView> inputs;
    private final List<ValueView> outputs;
    private final boolean dropConstantInitializers;

    /**
     * Builds the view.
     *
     * @param graph the graph that holds the nodes
     * @param name the view's name
     * @param members nodes of that graph, at least one
     * @param dropConstantInitializers whether constant initializers the nodes read are left out of the inputs
     * @throws InvalidArgumentException when no node is given or one is not a node of the graph
     */
    public NodeGroup(Graph graph, String name, List<? extends NodeView> members, boolean dropConstantInitializers) {
        this(graph, name, members, dropConstantInitializers, null);
    }

    /**
     * Builds the view, ordering the nodes by positions numbered beforehand, so that building the views of all the
     * groups of a graph takes time linear in the graph's size.
     *
     * @param graph the graph that holds the nodes
     * @param name the view's name
     * @param members nodes of that graph, at least one
     * @param dropConstantInitializers whether constant initializers the nodes read are left out of the inputs
     * @param positions each node's position in the graph's topological order, or {@code null} to read the graph's
     *     order
     * @throws InvalidArgumentException when no node is given or one is not a node of the graph
     */
    public NodeGroup(Graph graph, String name, List<? extends NodeView> members, boolean dropConstantInitializers,
                     Map<NodeView, Integer> positions) {
        if (members == null || members.isEmpty()) {
            throw new InvalidArgumentException("a view of some nodes of graph " + Names.quote(graph.name())
                    + " needs a node");
        }
        this.graph = graph;
        this.name = name;
        this.dropConstantInitializers = dropConstantInitializers;
        Set<NodeView> set = Collections.newSetFromMap(new IdentityHashMap<>());
        for (NodeView n : members) {
            if (!(n instanceof Node node) || node.graph() != graph) {
                throw new InvalidArgumentException("node " + (n == null ? "'null'" : Names.quote(n.displayName()))
                        + " is not a node of graph " + Names.quote(graph.name()));
            }
            set.add(n);
        }
        List<NodeView> ordered;
        if (set.size() == 1) {
            ordered = List.copyOf(set);
        } else if (positions != null) {
            ordered = new ArrayList<>(set);
            ordered.sort(Comparator.comparingInt(positions::get));
        } else {
            ordered = new ArrayList<>(set.size());
            for (NodeView n : graph.nodes()) {
                if (set.contains(n)) {
                    ordered.add(n);
                }
            }
        }
        this.nodes = Collections.unmodifiableList(ordered);
        List<ValueView> in = new ArrayList<>();
        Set<ValueView> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (NodeView n : ordered) {
            for (ValueView v : reads(n)) {
                // a value made inside the set is not one of its inputs (values of outer graphs have no producer)
                if (v != null && !v.producer().map(set::contains).orElse(false)
                        && !(dropConstantInitializers && v.isConstantInitializer()) && seen.add(v)) {
                    in.add(v);
                }
            }
        }
        this.inputs = List.copyOf(in);
        List<ValueView> out = new ArrayList<>();
        for (NodeView n : ordered) {
            for (ValueView v : n.outputs()) {
                if (v != null && (v.isGraphOutput() || readOutside(v, set))) {
                    out.add(v);
                }
            }
        }
        this.outputs = List.copyOf(out);
    }

    /** Tells whether a node outside the set reads a value (its consumers are the nodes of its own graph). */
    private static boolean readOutside(ValueView v, Set<NodeView> members) {
        for (NodeView c : v.consumers()) {
            if (!members.contains(c)) {
                return true;
            }
        }
        return false;
    }

    /** A node's inputs followed by the outer values its subgraphs read. */
    static List<ValueView> reads(NodeView n) {
        if (n.implicitInputs().isEmpty()) {
            return n.inputs();
        }
        List<ValueView> all = new ArrayList<>(n.inputs());
        all.addAll(n.implicitInputs());
        return all;
    }

    /**
     * Gets the graph the nodes belong to.
     *
     * @return the graph
     */
    public Graph graph() {
        return graph;
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

    /** The initializers the nodes read: the constant ones when they are dropped from the inputs, else those inputs. */
    @Override
    public List<ValueView> initializers() {
        LinkedHashSet<ValueView> inits = new LinkedHashSet<>();
        for (NodeView n : nodes) {
            for (ValueView v : reads(n)) {
                if (v != null && v.isInitializer() && (!dropConstantInitializers || v.isConstantInitializer()
                        || inputs.contains(v))) {
                    inits.add(v);
                }
            }
        }
        return List.copyOf(inits);
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

    /** A view of some nodes has no parent node, even when its graph is a subgraph. */
    @Override
    public Optional<NodeView> parentNode() {
        return Optional.empty();
    }

    @Override
    public Map<String, String> modelMetadata() {
        return graph.modelMetadata();
    }

    /** {@inheritDoc} The nodes must be among this view's. */
    @Override
    public GraphView viewOf(List<NodeView> subset) {
        for (NodeView n : subset) {
            if (!nodes.contains(n)) {
                throw new InvalidArgumentException("node " + Names.quote(n.displayName()) + " is not in view "
                        + Names.quote(name));
            }
        }
        return new NodeGroup(graph, name, subset, true);
    }

    @Override
    public ModelExport exportModel(ModelExportOptions options) {
        return ModelExporter.export(graph, name, nodes, inputs, outputs, options);
    }
}
