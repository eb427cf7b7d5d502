package io.ortex.ep.cpu;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A one-node model under construction for the kernel tests: any domain, every attribute kind they need, graph
 * inputs, constant initializers or omitted inputs.
 */
public final class OneNodeModel {
    private final String domain;
    private final int opset;
    private final Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder();
    private final Map<String, Tensor> feeds = new LinkedHashMap<>();
    private final List<Onnx.TensorProto> inits = new ArrayList<>();
    private final List<String> outputs = new ArrayList<>();

    /** Starts a node of the default ONNX domain. */
    public OneNodeModel(String op, int opset) {
        this("", op, opset);
    }

    /** Starts a node of a domain (the ONNX domain is imported at opset 21 beside it). */
    public OneNodeModel(String domain, String op, int opset) {
        this.domain = domain;
        this.opset = opset;
        node.setOpType(op).setName(op + "_node").setDomain(domain);
    }

    /** Adds an input fed at run time. */
    public OneNodeModel in(Tensor t) {
        String name = "in" + node.getInputCount();
        node.addInput(name);
        feeds.put(name, t);
        return this;
    }

    /** Adds an input held by a constant initializer. */
    public OneNodeModel constIn(Tensor t) {
        String name = "in" + node.getInputCount();
        node.addInput(name);
        inits.add(TensorCodec.toProto(t, name));
        return this;
    }

    /** Adds an omitted optional input. */
    public OneNodeModel none() {
        node.addInput("");
        return this;
    }

    private OneNodeModel add(Onnx.AttributeProto.Builder a) {
        node.addAttribute(a);
        return this;
    }

    private static Onnx.AttributeProto.Builder attr(String name, Onnx.AttributeProto.AttributeType type) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(type);
    }

    /** Adds an int attribute. */
    public OneNodeModel attr(String name, long v) {
        return add(attr(name, Onnx.AttributeProto.AttributeType.INT).setI(v));
    }

    /** Adds a float attribute. */
    public OneNodeModel attr(String name, float v) {
        return add(attr(name, Onnx.AttributeProto.AttributeType.FLOAT).setF(v));
    }

    /** Adds a string attribute. */
    public OneNodeModel attr(String name, String v) {
        return add(attr(name, Onnx.AttributeProto.AttributeType.STRING)
                .setS(com.google.protobuf.ByteString.copyFromUtf8(v)));
    }

    /** Adds an ints attribute. */
    public OneNodeModel ints(String name, long... v) {
        Onnx.AttributeProto.Builder a = attr(name, Onnx.AttributeProto.AttributeType.INTS);
        for (long x : v) {
            a.addInts(x);
        }
        return add(a);
    }

    /** Adds a floats attribute. */
    public OneNodeModel floats(String name, float... v) {
        Onnx.AttributeProto.Builder a = attr(name, Onnx.AttributeProto.AttributeType.FLOATS);
        for (float x : v) {
            a.addFloats(x);
        }
        return add(a);
    }

    /** Adds a strings attribute. */
    public OneNodeModel strings(String name, String... v) {
        Onnx.AttributeProto.Builder a = attr(name, Onnx.AttributeProto.AttributeType.STRINGS);
        for (String x : v) {
            a.addStrings(com.google.protobuf.ByteString.copyFromUtf8(x));
        }
        return add(a);
    }

    /** Adds a tensor attribute. */
    public OneNodeModel tensor(String name, Tensor t) {
        return add(attr(name, Onnx.AttributeProto.AttributeType.TENSOR).setT(TensorCodec.toProto(t, name)));
    }

    /** Declares {@code n} outputs (one when never called). */
    public OneNodeModel outputs(int n) {
        for (int i = 0; i < n; i++) {
            outputs.add("out" + i);
        }
        return this;
    }

    /** Runs the model and returns its outputs in order. */
    public List<Tensor> run() {
        if (outputs.isEmpty()) {
            outputs(1);
        }
        node.addAllOutput(outputs);
        Onnx.GraphProto.Builder g = Onnx.GraphProto.newBuilder().setName("g").addNode(node);
        for (String name : feeds.keySet()) {
            g.addInput(Onnx.ValueInfoProto.newBuilder().setName(name));
        }
        g.addAllInitializer(inits);
        for (String name : outputs) {
            g.addOutput(Onnx.ValueInfoProto.newBuilder().setName(name));
        }
        Onnx.ModelProto.Builder m = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("")
                        .setVersion(domain.isEmpty() ? opset : 21));
        if (!domain.isEmpty()) {
            m.addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain(domain).setVersion(opset));
        }
        return new ArrayList<>(KernelHarness.run(m.build(), feeds).values());
    }

    /** Runs the model and returns its first output. */
    public Tensor run1() {
        return run().get(0);
    }
}
