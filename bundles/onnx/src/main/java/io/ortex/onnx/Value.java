package io.ortex.onnx;

import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A value of a {@link Graph}: a graph input, an initializer, a node output, or a value of an enclosing graph that a
 * subgraph reads. Built once with its graph and not changed afterwards.
 */
public final class Value implements ValueView {
    private final String name;
    private final Graph graph;
    private final Value outer;
    private TensorInfo typeInfo;
    private Node producer;
    private int producerOutput = -1;
    private final List<NodeView> consumers = new ArrayList<>();
    private volatile TensorProto initializer;
    private boolean graphInput;
    private boolean graphOutput;

    Value(String name, Graph graph, Value outer) {
        this.name = name;
        this.graph = graph;
        this.outer = outer;
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Gets the graph that owns this value.
     *
     * @return the graph
     */
    public Graph graph() {
        return graph;
    }

    @Override
    public Optional<TensorInfo> typeInfo() {
        if (typeInfo == null && outer != null) {
            return outer.typeInfo();
        }
        return Optional.ofNullable(typeInfo);
    }

    @Override
    public Optional<NodeView> producer() {
        return Optional.ofNullable(producer);
    }

    /**
     * Gets which output of its producer this value is.
     *
     * @return the output index, or -1 when no node produces it
     */
    public int producerOutput() {
        return producerOutput;
    }

    @Override
    public List<NodeView> consumers() {
        return Collections.unmodifiableList(consumers);
    }

    @Override
    public boolean isInitializer() {
        return initializer != null;
    }

    @Override
    public boolean isConstantInitializer() {
        return initializer != null && !graphInput;
    }

    @Override
    public Optional<Tensor> initializer() {
        return initializer == null ? Optional.empty() : Optional.of(graph.model().decode(initializer));
    }

    /**
     * Gets the initializer's message as stored in the model.
     *
     * @return the message, or {@code null} when this is not an initializer
     */
    public TensorProto initializerProto() {
        return initializer;
    }

    @Override
    public Optional<ExternalDataInfo> externalData() {
        return initializer == null ? Optional.empty() : graph.model().externalInfo(initializer);
    }

    @Override
    public Optional<ByteBuffer> mappedData() {
        return initializer == null ? Optional.empty() : graph.model().map(initializer);
    }

    @Override
    public boolean isGraphInput() {
        return graphInput;
    }

    @Override
    public boolean isGraphOutput() {
        return graphOutput;
    }

    @Override
    public boolean isFromOuterScope() {
        return outer != null;
    }

    /**
     * Gets the value of the enclosing graph this value stands for.
     *
     * @return the outer value, or {@code null} when this value belongs to its own graph
     */
    public Value outerValue() {
        return outer;
    }

    void setTypeInfo(TensorInfo info) {
        if (info != null) {
            this.typeInfo = info;
        }
    }

    void setProducer(Node node, int output) {
        this.producer = node;
        this.producerOutput = output;
    }

    void addConsumer(Node node) {
        // a node's reads of one value are recorded one after another, so a repeat is always the last entry; a
        // value read by many nodes is thus not searched once per reader
        if (consumers.isEmpty() || consumers.get(consumers.size() - 1) != node) {
            consumers.add(node);
        }
    }

    void setInitializer(TensorProto proto) {
        this.initializer = proto;
    }

    void markGraphInput() {
        this.graphInput = true;
    }

    void markGraphOutput() {
        this.graphOutput = true;
    }

    @Override
    public String toString() {
        return name;
    }
}
