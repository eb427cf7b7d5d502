package io.ortex.ep.cpu.ops.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Unit tests of Where, Cast, CastLike, Constant and Identity, run through the kernels on one-node models. */
class TensorElementOpsTest {

    // ---------------------------------------------------------------- model building

    private static Onnx.AttributeProto intAttr(String name, long v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INT)
                .setI(v).build();
    }

    private static Onnx.AttributeProto floatAttr(String name, float v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.FLOAT)
                .setF(v).build();
    }

    private static Onnx.AttributeProto intsAttr(String name, long... v) {
        Onnx.AttributeProto.Builder b = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long x : v) {
            b.addInts(x);
        }
        return b.build();
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
    void whereBroadcastsThreeWaysForAnyType() {
        Tensor c = Tensor.ofBooleans(new boolean[] {true, false}, 2, 1);
        Tensor x = Tensor.ofStrings(new String[] {"x0", "x1", "x2"}, 3);
        Tensor y = Tensor.ofStrings(new String[] {"y"}, 1);
        Tensor r = run1("Where", 16, in(c, x, y));
        assertArrayEquals(new long[] {2, 3}, r.shape());
        assertArrayEquals(new String[] {"x0", "x1", "x2", "y", "y", "y"}, r.strings());
        Tensor f = run1("Where", 16, in(c, f32(new float[] {1, 2}, 1, 2), f32(new float[] {-1}, 1)));
        assertArrayEquals(new float[] {1, 2, -1, -1}, f.floats());
    }

    @Test
    void castBetweenNumbersStringsAndHalfTypes() {
        Tensor x = f32(new float[] {-2.7f, 0.5f, 3.9f}, 3);
        assertArrayEquals(new int[] {-2, 0, 3}, run1("Cast", 13, in(x), intAttr("to", 6)).ints());
        assertArrayEquals(new boolean[] {true, true, true}, run1("Cast", 13, in(x), intAttr("to", 9)).booleans());
        Tensor s = run1("Cast", 13, in(f32(new float[] {0.1f, 1f, 1e-5f, Float.NEGATIVE_INFINITY}, 4)),
                intAttr("to", 8));
        assertArrayEquals(new String[] {"0.1", "1.0", "1e-05", "-INF"}, s.strings());
        Tensor back = run1("Cast", 13, in(Tensor.ofStrings(new String[] {"1.5", "-inf", "NaN", "2e3"}, 4)),
                intAttr("to", 1));
        assertArrayEquals(new float[] {1.5f, Float.NEGATIVE_INFINITY, Float.NaN, 2000f}, back.floats());
        Tensor h = run1("Cast", 13, in(x), intAttr("to", 10));
        assertEquals(ElementType.FLOAT16, h.type());
        assertEquals(0.5f, HalfFloats.float16ToFloat(h.shorts()[1]));
        Tensor like = run1("CastLike", 15, in(Tensor.ofInts(new int[] {7}, 1), Tensor.ofDoubles(new double[0], 0)));
        assertArrayEquals(new double[] {7}, like.doubles());
        Tensor u64 = run1("Cast", 13, in(Tensor.ofDoubles(new double[] {1.8446744073709550E19}, 1)),
                intAttr("to", 13));
        assertEquals("18446744073709549568", Long.toUnsignedString(u64.longs()[0]));
    }

    @Test
    void castToUnsupportedTypesFailsClearly() {
        OrtexException e = assertThrows(OrtexException.class,
                () -> run1("Cast", 19, in(f32(new float[] {1}, 1)), intAttr("to", 14)));
        assertTrue(e.getMessage().contains("complex64"), e.getMessage());
        assertThrows(OrtexException.class, () -> run1("Cast", 21, in(f32(new float[] {1}, 1)), intAttr("to", 15)));
        assertThrows(OrtexException.class, () -> run1("Cast", 13, in(Tensor.ofStrings(new String[] {"x"}, 1)),
                intAttr("to", 1)));
    }

    @Test
    void constantFromEachAttributeKind() {
        Tensor ints = run1("Constant", 13, in(), intsAttr("value_ints", 1, 2, 3));
        assertArrayEquals(new long[] {1, 2, 3}, ints.longs());
        assertArrayEquals(new long[] {3}, ints.shape());
        Tensor f = run1("Constant", 13, in(), floatAttr("value_float", 2.5f));
        assertEquals(0, f.rank());
        assertEquals(2.5f, f.floats()[0]);
        Onnx.AttributeProto value = Onnx.AttributeProto.newBuilder().setName("value")
                .setType(Onnx.AttributeProto.AttributeType.TENSOR)
                .setT(TensorCodec.toProto(Tensor.ofInts(new int[] {4, 5}, 2), "v")).build();
        assertArrayEquals(new int[] {4, 5}, run1("Constant", 13, in(), value).ints());
        Onnx.AttributeProto sparse = Onnx.AttributeProto.newBuilder().setName("sparse_value")
                .setType(Onnx.AttributeProto.AttributeType.SPARSE_TENSOR)
                .setSparseTensor(Onnx.SparseTensorProto.newBuilder()).build();
        OrtexException e = assertThrows(OrtexException.class, () -> run1("Constant", 13, in(), sparse));
        assertTrue(e.getMessage().contains("sparse_value"), e.getMessage());
    }

    @Test
    void identityPassesTheInputThrough() {
        Tensor x = f32(new float[] {1, 2}, 2);
        assertSame(x, run1("Identity", 16, in(x)));
    }
}
