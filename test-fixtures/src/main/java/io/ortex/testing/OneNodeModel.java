package io.ortex.testing;

import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * A one-node model under construction, for the tests of single operators: the node of any domain and opset, inputs
 * fed at run time or held by constant initializers (named or numbered), omitted optional inputs, attributes of every
 * kind, and its outputs; run by the class path's {@link ModelRunner}. Not thread safe; one builder per model.
 */
public final class OneNodeModel {
    private final String domain;
    private final int opset;
    private final NodeProto.Builder node = NodeProto.newBuilder();
    private final Map<String, Tensor> feeds = new LinkedHashMap<>();
    private final List<TensorProto> inits = new ArrayList<>();
    private final List<String> outputs = new ArrayList<>();

    /**
     * Starts a node of the ONNX domain.
     *
     * @param op the operator
     * @param opset the ONNX opset
     */
    public OneNodeModel(String op, int opset) {
        this("", op, opset);
    }

    /**
     * Starts a node of a domain; the ONNX domain is imported at opset 21 beside it.
     *
     * @param domain the domain, empty for ONNX's
     * @param op the operator
     * @param opset the domain's opset
     */
    public OneNodeModel(String domain, String op, int opset) {
        this.domain = domain;
        this.opset = opset;
        node.setOpType(op).setName(op + "_node").setDomain(domain);
    }

    /**
     * Starts a node of the ONNX domain from inputs listed by position, all fed at run time.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs in order, null for an omitted optional input
     * @param attrs the attributes ({@link Attributes} makes them)
     * @return the builder
     */
    public static OneNodeModel of(String op, int opset, Tensor[] inputs, AttributeProto... attrs) {
        return of(op, opset, inputs, new int[0], attrs);
    }

    /**
     * Starts a node of the ONNX domain from inputs listed by position: input {@code i} is omitted when null, held by a
     * constant initializer when {@code i} is one of {@code constants}, and fed at run time otherwise.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs in order, null for an omitted optional input
     * @param constants the positions of the inputs held by constant initializers
     * @param attrs the attributes ({@link Attributes} makes them)
     * @return the builder
     */
    public static OneNodeModel of(String op, int opset, Tensor[] inputs, int[] constants, AttributeProto... attrs) {
        OneNodeModel m = new OneNodeModel(op, opset);
        for (int i = 0; i < inputs.length; i++) {
            int index = i;
            if (inputs[i] == null) {
                m.none();
            } else if (IntStream.of(constants).anyMatch(c -> c == index)) {
                m.constIn(inputs[i]);
            } else {
                m.in(inputs[i]);
            }
        }
        for (AttributeProto a : attrs) {
            m.attr(a);
        }
        return m;
    }

    /**
     * Runs a node of the ONNX domain whose inputs are all fed at run time ({@link #of(String, int, Tensor[],
     * AttributeProto...)}) with the class path's {@link ModelRunner}.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs in order, null for an omitted optional input
     * @param outputs how many outputs the node has
     * @param attrs the attributes
     * @return its outputs in order
     */
    public static List<Tensor> run(String op, int opset, Tensor[] inputs, int outputs, AttributeProto... attrs) {
        return run(op, opset, inputs, outputs, new int[0], attrs);
    }

    /**
     * Runs a node of the ONNX domain, some inputs held by constant initializers ({@link #of(String, int, Tensor[],
     * int[], AttributeProto...)}), with the class path's {@link ModelRunner}.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs in order, null for an omitted optional input
     * @param outputs how many outputs the node has
     * @param constants the positions of the inputs held by constant initializers
     * @param attrs the attributes
     * @return its outputs in order
     */
    public static List<Tensor> run(String op, int opset, Tensor[] inputs, int outputs, int[] constants,
            AttributeProto... attrs) {
        return Arrays.asList(of(op, opset, inputs, constants, attrs).run(outputs));
    }

    /**
     * Runs a one-output node of the ONNX domain whose inputs are all fed at run time, with the class path's
     * {@link ModelRunner}.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs in order, null for an omitted optional input
     * @param attrs the attributes
     * @return its output
     */
    public static Tensor run1(String op, int opset, Tensor[] inputs, AttributeProto... attrs) {
        return of(op, opset, inputs, attrs).run1();
    }

    /**
     * Adds an input fed at run time, named {@code inK}.
     *
     * @param t the value
     * @return this builder
     */
    public OneNodeModel in(Tensor t) {
        return in("in" + node.getInputCount(), t);
    }

    /**
     * Adds a named input fed at run time.
     *
     * @param name the name
     * @param t the value
     * @return this builder
     */
    public OneNodeModel in(String name, Tensor t) {
        node.addInput(name);
        feeds.put(name, t);
        return this;
    }

    /**
     * Adds an input held by a constant initializer, named {@code inK}.
     *
     * @param t the value
     * @return this builder
     */
    public OneNodeModel constIn(Tensor t) {
        return constIn("in" + node.getInputCount(), t);
    }

    /**
     * Adds a named input held by a constant initializer.
     *
     * @param name the name
     * @param t the value
     * @return this builder
     */
    public OneNodeModel constIn(String name, Tensor t) {
        node.addInput(name);
        inits.add(TensorCodec.toProto(t, name));
        return this;
    }

    /**
     * Adds an omitted optional input.
     *
     * @return this builder
     */
    public OneNodeModel none() {
        node.addInput("");
        return this;
    }

    /**
     * Adds an attribute ({@link Attributes} makes them).
     *
     * @param a the attribute
     * @return this builder
     */
    public OneNodeModel attr(AttributeProto a) {
        node.addAttribute(a);
        return this;
    }

    /**
     * Adds an integer attribute.
     *
     * @param name the name
     * @param v the value
     * @return this builder
     */
    public OneNodeModel attr(String name, long v) {
        return attr(Attributes.attr(name, v));
    }

    /**
     * Adds a float attribute.
     *
     * @param name the name
     * @param v the value
     * @return this builder
     */
    public OneNodeModel attr(String name, float v) {
        return attr(Attributes.attr(name, v));
    }

    /**
     * Adds a string attribute.
     *
     * @param name the name
     * @param v the value
     * @return this builder
     */
    public OneNodeModel attr(String name, String v) {
        return attr(Attributes.attr(name, v));
    }

    /**
     * Adds a tensor attribute.
     *
     * @param name the name
     * @param v the value
     * @return this builder
     */
    public OneNodeModel attr(String name, Tensor v) {
        return attr(Attributes.attr(name, v));
    }

    /**
     * Adds a tensor attribute.
     *
     * @param name the name
     * @param v the value
     * @return this builder
     */
    public OneNodeModel tensor(String name, Tensor v) {
        return attr(name, v);
    }

    /**
     * Adds an integer-list attribute.
     *
     * @param name the name
     * @param v the values
     * @return this builder
     */
    public OneNodeModel ints(String name, long... v) {
        return attr(Attributes.ints(name, v));
    }

    /**
     * Adds a float-list attribute.
     *
     * @param name the name
     * @param v the values
     * @return this builder
     */
    public OneNodeModel floats(String name, float... v) {
        return attr(Attributes.floats(name, v));
    }

    /**
     * Adds a string-list attribute.
     *
     * @param name the name
     * @param v the values
     * @return this builder
     */
    public OneNodeModel strings(String name, String... v) {
        return attr(Attributes.strings(name, v));
    }

    /**
     * Declares {@code n} outputs, named {@code outK} (one when never called).
     *
     * @param n how many
     * @return this builder
     */
    public OneNodeModel outputs(int n) {
        for (int i = 0; i < n; i++) {
            outputs.add("out" + outputs.size());
        }
        return this;
    }

    /**
     * Gets the model: the node's inputs fed at run time are graph inputs typed as their values.
     *
     * @return the model
     */
    public ModelProto model() {
        if (outputs.isEmpty()) {
            outputs(1);
        }
        NodeProto.Builder n = node.clone().clearOutput().addAllOutput(outputs);
        GraphProto.Builder g = GraphProto.newBuilder().setName("g").addNode(n);
        feeds.forEach((name, t) -> g.addInput(ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder()
                .setTensorType(TypeProto.Tensor.newBuilder().setElemType(t.type().code())))));
        g.addAllInitializer(inits);
        for (String name : outputs) {
            g.addOutput(ValueInfoProto.newBuilder().setName(name));
        }
        ModelProto.Builder m = ModelProto.newBuilder().setIrVersion(10).setGraph(g)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(domain.isEmpty() ? opset
                        : 21));
        if (!domain.isEmpty()) {
            m.addOpsetImport(OperatorSetIdProto.newBuilder().setDomain(domain).setVersion(opset));
        }
        return m.build();
    }

    /**
     * Gets the values fed at run time.
     *
     * @return the inputs by name
     */
    public Map<String, Tensor> feeds() {
        return new LinkedHashMap<>(feeds);
    }

    /**
     * Runs the model with the class path's {@link ModelRunner}.
     *
     * @return its outputs in order
     */
    public List<Tensor> run() {
        return new ArrayList<>(ModelRunner.current().run(model(), feeds).values());
    }

    /**
     * Declares {@code n} outputs and runs the model.
     *
     * @param n how many outputs the node has
     * @return its outputs in order
     */
    public Tensor[] run(int n) {
        outputs.clear();
        outputs(n);
        return run().toArray(new Tensor[0]);
    }

    /**
     * Runs the model and returns its first output.
     *
     * @return the output
     */
    public Tensor run1() {
        return run().get(0);
    }
}
