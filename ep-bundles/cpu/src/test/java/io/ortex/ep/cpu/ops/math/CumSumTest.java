package io.ortex.ep.cpu.ops.math;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Unit tests of CumSum. */
class CumSumTest {

    /** Builds a one-node model; inputs named by {@code in}, "" for an omitted input. */
    static final class Node {
        final String op;
        final int opset;
        final List<String> inputs = new ArrayList<>();
        final List<String> outputs = new ArrayList<>();
        final Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder();
        final Map<String, Tensor> feeds = new LinkedHashMap<>();
        final List<Onnx.TensorProto> inits = new ArrayList<>();

        Node(String op, int opset) {
            this.op = op;
            this.opset = opset;
            node.setOpType(op);
        }

        Node in(String name, Tensor t) {
            inputs.add(name);
            feeds.put(name, t);
            return this;
        }

        Node constIn(String name, Tensor t) {
            inputs.add(name);
            inits.add(TensorCodec.toProto(t, name));
            return this;
        }

        Node none() {
            inputs.add("");
            return this;
        }

        Node ints(String name, long... v) {
            Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.INTS);
            for (long x : v) {
                a.addInts(x);
            }
            node.addAttribute(a);
            return this;
        }

        Node attr(String name, long v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.INT).setI(v));
            return this;
        }

        Node attr(String name, float v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.FLOAT).setF(v));
            return this;
        }

        Node attr(String name, String v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.STRING)
                    .setS(com.google.protobuf.ByteString.copyFromUtf8(v)));
            return this;
        }

        Node attr(String name, Tensor v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.TENSOR).setT(TensorCodec.toProto(v, name)));
            return this;
        }

        Tensor[] run(int outputs) {
            Onnx.GraphProto.Builder g = Onnx.GraphProto.newBuilder().setName("g");
            node.addAllInput(inputs);
            for (String name : feeds.keySet()) {
                g.addInput(Onnx.ValueInfoProto.newBuilder().setName(name));
            }
            g.addAllInitializer(inits);
            for (int i = 0; i < outputs; i++) {
                node.addOutput("y" + i);
                g.addOutput(Onnx.ValueInfoProto.newBuilder().setName("y" + i));
            }
            g.addNode(node);
            Onnx.ModelProto m = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                    .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
            Map<String, Tensor> out = KernelHarness.run(m, feeds);
            return out.values().toArray(new Tensor[0]);
        }

        Tensor run() {
            return run(1)[0];
        }
    }

    static Tensor floats(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    static long[] s(long... dims) {
        return dims;
    }

    @Test
    void cumSumExclusiveAndReversed() {
        Tensor c = new Node("CumSum", 14).attr("exclusive", 1L).attr("reverse", 1L).in("x", floats(s(3), 1, 2, 3))
                .in("a", Tensor.ofInts(new int[] {0})).run();
        assertArrayEquals(new float[] {5, 3, 0}, c.floats());
    }
}
