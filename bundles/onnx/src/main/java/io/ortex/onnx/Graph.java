package io.ortex.onnx;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.ResourceLimits;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TensorShapeProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A validated graph of an {@link OnnxModel}: its values, and its nodes in a stable topological order (the model's
 * order wherever the dependencies allow). Subgraphs of If, Loop and Scan nodes are graphs too, whose values may
 * come from the graphs around them. Immutable once built; safe to read from many threads.
 */
public final class Graph implements GraphView {
    /** The deepest nesting of subgraphs accepted by default ({@link ResourceLimits#NESTING_DEPTH}). */
    public static final int MAX_NESTING = ResourceLimits.DEFAULT_NESTING_DEPTH;

    private final OnnxModel model;
    private volatile GraphProto proto;
    private final Graph outer;
    private final Node parentNode;
    private final Map<String, Value> values = new LinkedHashMap<>();
    private final List<Node> nodes = new ArrayList<>();
    private final List<ValueView> inputs = new ArrayList<>();
    private final List<ValueView> outputs = new ArrayList<>();
    private final List<ValueView> initializers = new ArrayList<>();
    /** The declared values by name, built on first use; a benign race builds equal maps. */
    private volatile Map<String, ValueInfoProto> declared;

    private Graph(OnnxModel model, GraphProto proto, Graph outer, Node parentNode) {
        this.model = model;
        this.proto = proto;
        this.outer = outer;
        this.parentNode = parentNode;
    }

    /**
     * Builds and validates a graph.
     *
     * @param model the model that holds it
     * @param proto the graph message
     * @param outer the enclosing graph, or {@code null} for the main graph
     * @param parentNode the node whose attribute holds this graph, or {@code null}
     * @param depth the nesting depth, 0 for the main graph
     * @return the graph
     */
    static Graph build(OnnxModel model, GraphProto proto, Graph outer, Node parentNode, int depth) {
        int maxDepth = model.limits().nestingDepth();
        if (depth > maxDepth) {
            throw new InvalidModelException(model.describe() + ": subgraphs nested more than "
                    + maxDepth + " deep (at " + parentNode + "; " + ResourceLimits.NESTING_DEPTH + ")");
        }
        Graph g = new Graph(model, proto, outer, parentNode);
        g.checkSize();
        g.buildValues();
        g.buildNodes(depth);
        return g;
    }

    /** Refuses a graph with more nodes than allowed, or holding a string longer than allowed, before building it. */
    private void checkSize() {
        long maxNodes = model.limits().graphNodes();
        if (proto.getNodeCount() > maxNodes) {
            throw new InvalidModelException(where() + "has " + proto.getNodeCount()
                    + " nodes, more than the limit of " + maxNodes + " (" + ResourceLimits.GRAPH_NODES + ")");
        }
        model.checkString(proto.getName(), "a graph name");
        for (ValueInfoProto vi : proto.getInputList()) {
            model.checkString(vi.getName(), "a graph input name");
        }
        for (ValueInfoProto vi : proto.getOutputList()) {
            model.checkString(vi.getName(), "a graph output name");
        }
        for (ValueInfoProto vi : proto.getValueInfoList()) {
            model.checkString(vi.getName(), "a value_info name");
        }
        for (TensorProto t : proto.getInitializerList()) {
            model.checkString(t.getName(), "an initializer name");
        }
        for (NodeProto n : proto.getNodeList()) {
            model.checkString(n.getName(), "a node name");
            model.checkString(n.getOpType(), "an op type");
            model.checkString(n.getDomain(), "a domain");
            for (String v : n.getInputList()) {
                model.checkString(v, "an input name of a node");
            }
            for (String v : n.getOutputList()) {
                model.checkString(v, "an output name of a node");
            }
            boolean epContext = "EPContext".equals(n.getOpType());
            for (AttributeProto a : n.getAttributeList()) {
                model.checkString(a.getName(), "an attribute name");
                // an EPContext node's payload is a compiled program, bounded by the model's size alone
                if (epContext && "ep_cache_context".equals(a.getName())) {
                    continue;
                }
                if (a.getS().size() > model.limits().stringLength()) {
                    model.checkString(a.getS().toStringUtf8(), "attribute " + Names.quote(a.getName()));
                }
                for (com.google.protobuf.ByteString s : a.getStringsList()) {
                    if (s.size() > model.limits().stringLength()) {
                        model.checkString(s.toStringUtf8(), "attribute " + Names.quote(a.getName()));
                    }
                }
            }
        }
    }

    private void buildValues() {
        for (ValueInfoProto vi : proto.getInputList()) {
            Value v = local(vi.getName(), "graph input");
            v.setTypeInfo(typeInfo(vi));
            v.markGraphInput();
            inputs.add(v);
        }
        for (TensorProto t : proto.getInitializerList()) {
            if (t.getName().isEmpty()) {
                throw new InvalidModelException(where() + "has an initializer without a name");
            }
            Value v = values.get(t.getName());
            if (v == null) {
                v = local(t.getName(), "initializer");
            } else if (v.isInitializer()) {
                throw new InvalidModelException(where() + "has two initializers named " + Names.quote(t.getName()));
            }
            model.checkInitializer(t);
            v.setInitializer(t);
            if (v.typeInfo().isEmpty()) {
                v.setTypeInfo(initializerInfo(t));
            }
            initializers.add(v);
        }
        if (proto.getSparseInitializerCount() > 0) {
            throw new io.ortex.api.NotImplementedException(where() + "uses sparse initializers, which Ortex does not "
                    + "support yet");
        }
    }

    private void buildNodes(int depth) {
        List<Node> declared = new ArrayList<>();
        for (int i = 0; i < proto.getNodeCount(); i++) {
            NodeProto np = proto.getNode(i);
            Node node = new Node(this, np, i);
            declared.add(node);
            for (int o = 0; o < np.getOutputCount(); o++) {
                String out = np.getOutput(o);
                if (out.isEmpty()) {
                    node.mutableOutputs().add(null);
                    continue;
                }
                Value v = values.get(out);
                if (v != null && (v.producer().isPresent() || v.isGraphInput() || v.isInitializer())) {
                    String first = v.producer().map(Object::toString)
                            .orElse(v.isGraphInput() ? "a graph input" : "an initializer");
                    throw new InvalidModelException(where() + "value " + Names.quote(out) + " is produced twice: by "
                            + first
                            + " and by " + node);
                }
                if (v == null) {
                    v = local(out, "node output");
                }
                v.setProducer(node, o);
                node.mutableOutputs().add(v);
            }
        }
        for (ValueInfoProto vi : proto.getValueInfoList()) {
            Value v = values.get(vi.getName());
            if (v != null) {
                v.setTypeInfo(typeInfo(vi));
            }
        }
        for (Node node : declared) {
            for (String in : node.proto().getInputList()) {
                if (in.isEmpty()) {
                    node.mutableInputs().add(null);
                    continue;
                }
                Value v = resolve(in, node);
                v.addConsumer(node);
                node.mutableInputs().add(v);
            }
            for (AttributeProto ap : node.proto().getAttributeList()) {
                node.putAttribute(AttributeDecoder.decode(this, node, ap, depth));
            }
        }
        Set<String> listed = new HashSet<>();
        for (ValueInfoProto vi : proto.getOutputList()) {
            if (!listed.add(vi.getName())) {
                throw new InvalidModelException(where() + "graph output " + Names.quote(vi.getName())
                        + " is listed twice");
            }
            Value v = values.get(vi.getName());
            if (v == null) {
                v = outer == null ? null : lookUpOuter(vi.getName());
                if (v == null) {
                    throw new InvalidModelException(where() + "graph output " + Names.quote(vi.getName())
                            + " is not produced by any node, graph input or initializer");
                }
            }
            v.setTypeInfo(typeInfo(vi));
            v.markGraphOutput();
            outputs.add(v);
        }
        nodes.addAll(topologicalOrder(declared));
    }

    /** Finds a value a node reads: local, or from an enclosing graph (recorded as an implicit input). */
    private Value resolve(String name, Node reader) {
        Value v = values.get(name);
        if (v != null) {
            return v;
        }
        v = lookUpOuter(name);
        if (v == null) {
            throw new InvalidModelException(where() + reader + " reads " + Names.quote(name)
                    + ", which no node, graph input or initializer produces");
        }
        return v;
    }

    /**
     * Finds a value of an enclosing graph and makes a local stand-in for it; the parent node records the outer value
     * as an implicit input, so that it is scheduled after the value's producer.
     */
    private Value lookUpOuter(String name) {
        if (outer == null) {
            return null;
        }
        Value found = outer.values.get(name);
        if (found == null) {
            found = outer.lookUpOuter(name);
        }
        if (found == null) {
            return null;
        }
        parentNode.addImplicitInput(found);
        found.addConsumer(parentNode);
        Value proxy = new Value(name, this, found);
        values.put(name, proxy);
        return proxy;
    }

    /** Orders the nodes (whose ids are their positions in {@code declared}) in linear time but for the heap. */
    private List<Node> topologicalOrder(List<Node> declared) {
        int count = declared.size();
        int[] pending = new int[count];
        int[][] dependents = new int[count][];
        int[] dependentCount = new int[count];
        for (Node n : declared) {
            for (ValueView in : dependencies(n)) {
                Optional<NodeView> p = in.producer();
                if (p.isPresent() && ((Node) p.get()).graph() == this) {
                    int from = ((Node) p.get()).id();
                    pending[n.id()]++;
                    int[] list = dependents[from];
                    if (list == null) {
                        list = new int[2];
                    } else if (dependentCount[from] == list.length) {
                        list = Arrays.copyOf(list, list.length * 2);
                    }
                    list[dependentCount[from]++] = n.id();
                    dependents[from] = list;
                }
            }
        }
        PriorityQueue<Node> ready = new PriorityQueue<>((a, b) -> Integer.compare(a.id(), b.id()));
        for (Node n : declared) {
            if (pending[n.id()] == 0) {
                ready.add(n);
            }
        }
        List<Node> order = new ArrayList<>(count);
        while (!ready.isEmpty()) {
            Node n = ready.poll();
            order.add(n);
            for (int i = 0; i < dependentCount[n.id()]; i++) {
                int d = dependents[n.id()][i];
                if (--pending[d] == 0) {
                    ready.add(declared.get(d));
                }
            }
        }
        if (order.size() != count) {
            String cycle = declared.stream().filter(n -> pending[n.id()] > 0).map(NodeView::displayName)
                    .limit(10).collect(Collectors.joining(", "));
            throw new InvalidModelException(where() + "has a cycle through nodes " + cycle);
        }
        return order;
    }

    /** The values a node waits for: its inputs, and the local values its subgraphs read. */
    private List<ValueView> dependencies(Node n) {
        List<ValueView> deps = new ArrayList<>();
        for (ValueView v : n.inputs()) {
            if (v != null) {
                deps.add(v);
            }
        }
        for (ValueView v : n.implicitInputs()) {
            Value local = values.get(v.name());
            if (local != null) {
                deps.add(local);
            }
        }
        return deps;
    }

    private Value local(String name, String what) {
        if (name.isEmpty()) {
            throw new InvalidModelException(where() + "has a " + what + " without a name");
        }
        if (values.containsKey(name) && !"initializer".equals(what)) {
            throw new InvalidModelException(where() + "declares " + Names.quote(name) + " twice");
        }
        Value v = new Value(name, this, null);
        values.put(name, v);
        return v;
    }

    /**
     * Starts a message about this graph: the model, the parent node of a subgraph, the graph's name.
     *
     * @return the prefix, ending in {@code ": "}
     */
    String where() {
        String graphName = proto.getName().isEmpty() ? "" : " graph " + Names.quote(proto.getName());
        return model.describe() + (parentNode == null ? "" : " (subgraph of " + parentNode + ")") + graphName + ": ";
    }

    private TensorInfo typeInfo(ValueInfoProto vi) {
        try {
            return tensorInfo(vi);
        } catch (InvalidModelException e) {
            throw new InvalidModelException(e.code(), where() + e.getMessage(), e);
        }
    }

    /**
     * Reads the tensor type of a value declaration.
     *
     * @param vi the declaration
     * @return the type and shape, a {@link TensorInfo} without element type for non-tensor types, or {@code null}
     *     when no type is declared
     * @throws InvalidModelException when the element type number is unknown, naming the value
     */
    static TensorInfo tensorInfo(ValueInfoProto vi) {
        if (!vi.hasType() || !vi.getType().hasTensorType()) {
            return vi.hasType() && vi.getType().getValueCase() != TypeProto.ValueCase.VALUE_NOT_SET
                    ? new TensorInfo(vi.getName(), null, null, null) : null;
        }
        TypeProto.Tensor tt = vi.getType().getTensorType();
        ElementType type = null;
        if (tt.getElemType() != 0) {
            try {
                type = ElementType.fromCode(tt.getElemType());
            } catch (RuntimeException e) {
                throw new InvalidModelException("value " + Names.quote(vi.getName()) + " has unknown element type "
                        + tt.getElemType());
            }
        }
        if (!tt.hasShape()) {
            return new TensorInfo(vi.getName(), type, null, null);
        }
        List<TensorShapeProto.Dimension> dims = tt.getShape().getDimList();
        long[] d = new long[dims.size()];
        List<String> names = new ArrayList<>(d.length);
        for (int i = 0; i < d.length; i++) {
            TensorShapeProto.Dimension dim = dims.get(i);
            d[i] = dim.hasDimValue() ? dim.getDimValue() : -1;
            if (d[i] < -1) {
                // -1 is what some exporters write for a dimension of unknown size; other negatives mean nothing
                throw new InvalidModelException("value " + Names.quote(vi.getName()) + " declares dimension " + i
                        + " as "
                        + d[i] + "; a dimension is a size of 0 or more, or symbolic");
            }
            names.add(dim.hasDimParam() ? dim.getDimParam() : "");
        }
        return new TensorInfo(vi.getName(), type, d, names);
    }

    private static TensorInfo initializerInfo(TensorProto t) {
        long[] d = new long[t.getDimsCount()];
        for (int i = 0; i < d.length; i++) {
            d[i] = t.getDims(i);
        }
        ElementType type;
        try {
            type = ElementType.fromCode(t.getDataType());
        } catch (RuntimeException e) {
            type = null;
        }
        return new TensorInfo(t.getName(), type, d, Collections.nCopies(d.length, ""));
    }

    /**
     * Gets the model this graph belongs to.
     *
     * @return the model
     */
    public OnnxModel model() {
        return model;
    }

    /**
     * Gets the message this graph was read from.
     *
     * @return the graph message
     */
    public GraphProto proto() {
        return proto;
    }

    /** Replaces the message by one that differs only in where initializer data lives. */
    void replaceProto(GraphProto replacement) {
        this.proto = replacement;
    }

    /**
     * Finds a value that belongs to this graph (not to an enclosing one).
     *
     * @param name the value's name
     * @return the value, or {@code null}
     */
    public Value localValue(String name) {
        return values.get(name);
    }

    /**
     * Gets the graph's nodes as {@link Node}s, in topological order.
     *
     * @return the nodes
     */
    public List<Node> nodeList() {
        return Collections.unmodifiableList(nodes);
    }

    @Override
    public String name() {
        return proto.getName();
    }

    @Override
    public List<NodeView> nodes() {
        return Collections.unmodifiableList(nodes);
    }

    @Override
    public List<ValueView> inputs() {
        return Collections.unmodifiableList(inputs);
    }

    @Override
    public List<ValueView> outputs() {
        return Collections.unmodifiableList(outputs);
    }

    @Override
    public List<ValueView> initializers() {
        return Collections.unmodifiableList(initializers);
    }

    @Override
    public Optional<ValueView> value(String name) {
        for (Graph g = this; g != null; g = g.outer) {
            Value v = g.values.get(name);
            if (v != null) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }

    @Override
    public Map<String, Integer> opsetImports() {
        return model.opsetImports();
    }

    @Override
    public long irVersion() {
        return model.irVersion();
    }

    @Override
    public Optional<Path> modelPath() {
        return model.path();
    }

    @Override
    public Optional<NodeView> parentNode() {
        return Optional.ofNullable(parentNode);
    }

    @Override
    public Map<String, String> modelMetadata() {
        return model.metadata();
    }

    /** {@inheritDoc} The view's inputs leave out constant initializers, which it lists as its initializers. */
    @Override
    public GraphView viewOf(List<NodeView> subset) {
        return new NodeGroup(this, name(), subset, true);
    }

    @Override
    public ModelExport exportModel(ModelExportOptions options) {
        return ModelExporter.export(this, name(), nodes(), inputs(), outputs(), options);
    }

    /**
     * Finds the declaration of a value: a graph input, output or {@code value_info} entry of this graph or of a
     * graph around it.
     *
     * @param valueName the value's name
     * @return the declaration as written in the model, or {@code null} when none declares it
     */
    ValueInfoProto declaredValue(String valueName) {
        for (Graph g = this; g != null; g = g.outer) {
            ValueInfoProto vi = g.declarations().get(valueName);
            if (vi != null) {
                return vi;
            }
        }
        return null;
    }

    private Map<String, ValueInfoProto> declarations() {
        Map<String, ValueInfoProto> d = declared;
        if (d == null) {
            d = new HashMap<>();
            for (ValueInfoProto vi : proto.getValueInfoList()) {
                d.put(vi.getName(), vi);
            }
            for (ValueInfoProto vi : proto.getOutputList()) {
                d.put(vi.getName(), vi);
            }
            for (ValueInfoProto vi : proto.getInputList()) {
                d.put(vi.getName(), vi);
            }
            declared = Map.copyOf(d);
            d = declared;
        }
        return d;
    }
}
