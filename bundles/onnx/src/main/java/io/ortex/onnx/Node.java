package io.ortex.onnx;

import io.ortex.api.Names;
import io.ortex.api.spi.Attribute;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.proto.Onnx.NodeProto;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A node of a {@link Graph}. Built once with its graph and not changed afterwards. */
public final class Node implements NodeView {
    private final Graph graph;
    private final NodeProto proto;
    private final int id;
    private final List<ValueView> inputs = new ArrayList<>();
    private final List<ValueView> outputs = new ArrayList<>();
    private final List<ValueView> implicitInputs = new ArrayList<>();
    private final Map<String, Attribute> attributes = new LinkedHashMap<>();
    private final Map<String, GraphView> subgraphs = new LinkedHashMap<>();

    Node(Graph graph, NodeProto proto, int id) {
        this.graph = graph;
        this.proto = proto;
        this.id = id;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public String name() {
        return proto.getName();
    }

    @Override
    public String opType() {
        return proto.getOpType();
    }

    @Override
    public String domain() {
        String d = proto.getDomain();
        return "ai.onnx".equals(d) ? "" : d;
    }

    @Override
    public int opsetVersion() {
        return graph.model().opsetImports().getOrDefault(domain(), 0);
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
    public List<ValueView> implicitInputs() {
        return Collections.unmodifiableList(implicitInputs);
    }

    @Override
    public Map<String, Attribute> attributes() {
        return Collections.unmodifiableMap(attributes);
    }

    @Override
    public Map<String, GraphView> subgraphs() {
        return Collections.unmodifiableMap(subgraphs);
    }

    /**
     * Gets the graph that holds this node.
     *
     * @return the graph
     */
    public Graph graph() {
        return graph;
    }

    /**
     * Gets the message this node was read from.
     *
     * @return the node message
     */
    public NodeProto proto() {
        return proto;
    }

    List<ValueView> mutableInputs() {
        return inputs;
    }

    List<ValueView> mutableOutputs() {
        return outputs;
    }

    void addImplicitInput(Value v) {
        for (ValueView existing : implicitInputs) {
            if (existing.name().equals(v.name())) {
                return;
            }
        }
        implicitInputs.add(v);
    }

    void putAttribute(Attribute a) {
        attributes.put(a.name(), a);
        if (a.type() == io.ortex.api.spi.AttributeType.GRAPH) {
            subgraphs.put(a.name(), a.asGraph());
        }
    }

    @Override
    public String toString() {
        return "node " + Names.quote(displayName()) + " (" + (domain().isEmpty() ? "" : domain() + "::") + opType()
                + ")";
    }
}
