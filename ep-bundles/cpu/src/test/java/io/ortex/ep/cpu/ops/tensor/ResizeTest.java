package io.ortex.ep.cpu.ops.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Unit tests of Resize and Upsample across their opsets. */
class ResizeTest {

    private static Onnx.AttributeProto floatAttr(String name, float v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.FLOAT)
                .setF(v).build();
    }

    private static Onnx.AttributeProto stringAttr(String name, String v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.STRING)
                .setS(com.google.protobuf.ByteString.copyFromUtf8(v)).build();
    }

    private static Onnx.AttributeProto intsAttr(String name, long... v) {
        Onnx.AttributeProto.Builder b = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long x : v) {
            b.addInts(x);
        }
        return b.build();
    }

    private static Onnx.AttributeProto floatsAttr(String name, float... v) {
        Onnx.AttributeProto.Builder b = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.FLOATS);
        for (float x : v) {
            b.addFloats(x);
        }
        return b.build();
    }

    /**
     * Builds a one-node model. Inputs whose index is in {@code constants} become constant initializers; a null input
     * is omitted.
     */
    private static Onnx.ModelProto model(String op, int opset, Tensor[] inputs, int outputs, int[] constants,
            Onnx.AttributeProto... attrs) {
        Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder().setOpType(op).setName("n");
        Onnx.GraphProto.Builder graph = Onnx.GraphProto.newBuilder().setName("g");
        for (int i = 0; i < inputs.length; i++) {
            if (inputs[i] == null) {
                node.addInput("");
                continue;
            }
            String name = "x" + i;
            node.addInput(name);
            final int index = i;
            if (IntStream.of(constants).anyMatch(c -> c == index)) {
                graph.addInitializer(TensorCodec.toProto(inputs[i], name));
            } else {
                graph.addInput(Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
                        .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(inputs[i].type().code()))));
            }
        }
        for (int i = 0; i < outputs; i++) {
            node.addOutput("y" + i);
            graph.addOutput(Onnx.ValueInfoProto.newBuilder().setName("y" + i));
        }
        for (Onnx.AttributeProto a : attrs) {
            node.addAttribute(a);
        }
        graph.addNode(node);
        return Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
    }

    private static List<Tensor> run(String op, int opset, Tensor[] inputs, int outputs, int[] constants,
            Onnx.AttributeProto... attrs) {
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        for (int i = 0; i < inputs.length; i++) {
            final int index = i;
            if (inputs[i] != null && IntStream.of(constants).noneMatch(c -> c == index)) {
                feeds.put("x" + i, inputs[i]);
            }
        }
        Map<String, Tensor> out = KernelHarness.run(model(op, opset, inputs, outputs, constants, attrs), feeds);
        return new ArrayList<>(out.values());
    }

    private static Tensor run1(String op, int opset, Tensor[] inputs, Onnx.AttributeProto... attrs) {
        return run(op, opset, inputs, 1, new int[0], attrs).get(0);
    }

    private static void assertClose(Tensor expected, Tensor actual, double tol) {
        assertArrayEquals(expected.shape(), actual.shape(), "shape");
        for (int i = 0; i < expected.size(); i++) {
            double e = expected.getDouble(i);
            double a = actual.getDouble(i);
            assertTrue(Math.abs(e - a) <= tol * (1 + Math.abs(e)), "element " + i + ": expected " + e + ", got " + a);
        }
    }

    @Test
    void resizeFollowsTheOpsetRules() {
        Tensor x = Tensor.ofFloats(new float[] {0, 4}, 1, 2);
        Tensor scales = Tensor.ofFloats(new float[] {1, 2}, 2);
        // opset 10: asymmetric coordinates o / 2 = 0, 0.5, 1, 1.5
        assertArrayEquals(new float[] {0, 2, 4, 4}, run1("Resize", 10, new Tensor[] {x, scales},
                stringAttr("mode", "linear")).floats());
        // opset 11: half_pixel (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped to the edges
        Tensor roi = Tensor.ofFloats(new float[0], 0);
        assertArrayEquals(new float[] {0, 1, 3, 4}, run1("Resize", 11, new Tensor[] {x, roi, scales},
                stringAttr("mode", "linear")).floats());
        // opset 13, sizes only: x = (o + 0.5) * 0.6 - 0.5 = -0.2, 0.4, 1, 1.6, 2.2
        Tensor sizes = Tensor.ofLongs(new long[] {1, 5}, 2);
        Tensor x3 = Tensor.ofFloats(new float[] {1, 2, 3}, 1, 3);
        assertArrayEquals(new float[] {1, 1, 2, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, sizes})
                .floats());
        // the nearest modes differ at exact halves: asymmetric x = o / 2 with sizes 6
        Tensor six = Tensor.ofLongs(new long[] {1, 6}, 2);
        assertArrayEquals(new float[] {1, 2, 2, 3, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, six},
                stringAttr("coordinate_transformation_mode", "asymmetric"),
                stringAttr("nearest_mode", "round_prefer_ceil")).floats());
        assertArrayEquals(new float[] {1, 1, 2, 2, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, six},
                stringAttr("coordinate_transformation_mode", "asymmetric")).floats());
    }

    @Test
    void resizeLinearWithAxesAndCropExtrapolation() {
        Tensor x = Tensor.ofFloats(new float[] {0, 10, 20, 30}, 1, 2, 2);
        Tensor y = run1("Resize", 18, new Tensor[] {x, null, Tensor.ofFloats(new float[] {2}, 1)},
                stringAttr("mode", "linear"), intsAttr("axes", -1), stringAttr("coordinate_transformation_mode",
                        "align_corners"));
        assertArrayEquals(new long[] {1, 2, 4}, y.shape());
        assertClose(Tensor.ofFloats(new float[] {0, 10 / 3f, 20 / 3f, 10, 20, 70 / 3f, 80 / 3f, 30}, 1, 2, 4), y,
                1e-6);
        Tensor roi = Tensor.ofFloats(new float[] {0, 1.5f}, 2);
        Tensor c = run1("Resize", 18, new Tensor[] {x, roi, null, Tensor.ofLongs(new long[] {4}, 1)},
                stringAttr("mode", "linear"), intsAttr("axes", 2), stringAttr("coordinate_transformation_mode",
                        "tf_crop_and_resize"), floatAttr("extrapolation_value", -1f));
        // x_original = o * 1.5 / 3 = 0, 0.5, 1, 1.5 (outside)
        assertArrayEquals(new float[] {0, 5, 10, -1, 20, 25, 30, -1}, c.floats());
    }

    @Test
    void upsampleReadsScalesFromTheAttributeBeforeOpset9() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 1, 1, 2, 2);
        float[] expected = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
        assertArrayEquals(expected, run1("Upsample", 7, new Tensor[] {x}, floatsAttr("scales", 1, 1, 2, 2))
                .floats());
        assertArrayEquals(expected, run1("Upsample", 9, new Tensor[] {x, Tensor.ofFloats(new float[] {1, 1, 2, 2},
            4)}).floats());
        Tensor lin = run1("Upsample", 9, new Tensor[] {Tensor.ofFloats(new float[] {0, 4}, 1, 2),
            Tensor.ofFloats(new float[] {1, 2}, 2)}, stringAttr("mode", "linear"));
        assertArrayEquals(new float[] {0, 2, 4, 4}, lin.floats());
    }
}
