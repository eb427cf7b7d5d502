package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Unit tests of Dropout at inference, across its opsets. */
class DropoutTest {

    private static Onnx.AttributeProto floatAttr(String name, float v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.FLOAT)
                .setF(v).build();
    }

    /** Runs one node whose inputs are the given tensors (null for an omitted optional input). */
    private static List<Tensor> run(String op, int opset, Tensor[] inputs, int outputs,
            Onnx.AttributeProto... attrs) {
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
        Onnx.ModelProto model = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
        return new ArrayList<>(KernelHarness.run(model, feeds).values());
    }

    private static Tensor run1(String op, int opset, Tensor[] inputs, Onnx.AttributeProto... attrs) {
        return run(op, opset, inputs, 1, attrs).get(0);
    }

    private static Tensor[] in(Tensor... t) {
        return t;
    }

    private static Tensor f32(float[] v, long... shape) {
        return Tensor.ofFloats(v, shape);
    }

    @Test
    void dropoutPassesTheInputThrough() {
        Tensor x = f32(new float[] {1, 2}, 2);
        List<Tensor> d = run("Dropout", 13, in(x), 2);
        assertSame(x, d.get(0));
        assertArrayEquals(new boolean[] {true, true}, d.get(1).booleans());
        List<Tensor> old = run("Dropout", 7, in(x), 2, floatAttr("ratio", 0.3f));
        assertArrayEquals(new float[] {1, 1}, old.get(1).floats());
        Tensor train = Tensor.ofBooleans(new boolean[] {true});
        assertSame(x, run1("Dropout", 13, in(x, f32(new float[] {0f}), train)));
        OrtexException e = assertThrows(OrtexException.class,
                () -> run1("Dropout", 13, in(x, f32(new float[] {0.5f}), train)));
        assertTrue(e.getMessage().contains("training_mode"), e.getMessage());
    }
}
