package io.ortex.ep.cpu;

import com.google.protobuf.ByteString;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds and runs one-node models of the default ONNX domain for the kernel tests, inputs fed at run time. */
public final class OneNode {
    private OneNode() {
    }

    /** Makes an int attribute. */
    public static Onnx.AttributeProto intAttr(String name, long v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INT)
                .setI(v).build();
    }

    /** Makes a string attribute. */
    public static Onnx.AttributeProto stringAttr(String name, String v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.STRING)
                .setS(ByteString.copyFromUtf8(v)).build();
    }

    /** Runs one node whose inputs are the given tensors (null for an omitted optional input). */
    public static List<Tensor> run(String op, int opset, Tensor[] inputs, int outputs, Onnx.AttributeProto... attrs) {
        Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder().setOpType(op).setName("n");
        Onnx.GraphProto.Builder graph = Onnx.GraphProto.newBuilder().setName("g");
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        for (int i = 0; i < inputs.length; i++) {
            if (inputs[i] == null) {
                node.addInput("");
                continue;
            }
            String name = "x" + i;
            node.addInput(name);
            feeds.put(name, inputs[i]);
            graph.addInput(Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
                    .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(inputs[i].type().code()))));
        }
        for (int i = 0; i < outputs; i++) {
            node.addOutput("y" + i);
            graph.addOutput(Onnx.ValueInfoProto.newBuilder().setName("y" + i));
        }
        for (Onnx.AttributeProto a : attrs) {
            node.addAttribute(a);
        }
        graph.addNode(node);
        Onnx.ModelProto model = Onnx.ModelProto.newBuilder().setIrVersion(10).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
        return new ArrayList<>(KernelHarness.run(model, feeds).values());
    }

    /** Runs one node with one output and returns it. */
    public static Tensor run1(String op, int opset, Tensor[] inputs, Onnx.AttributeProto... attrs) {
        return run(op, opset, inputs, 1, attrs).get(0);
    }

    /** Lists a node's inputs ({@code null} for an omitted one). */
    public static Tensor[] in(Tensor... t) {
        return t;
    }

    /** Makes a tensor of a byte-stored type from int values. */
    public static Tensor bytes(io.ortex.api.ElementType type, long[] shape, int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return Tensor.of(type, shape, b);
    }

    /** Reads a byte-stored tensor as unsigned values. */
    public static int[] unsigned(Tensor t) {
        byte[] b = t.bytes();
        int[] r = new int[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[i] & 0xff;
        }
        return r;
    }
}
