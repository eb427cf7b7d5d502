package io.ortex.ep.cpu.ops.quantization;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.ElementType;
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

/** Unit tests of the integer and quantized products. */
class QuantizedProductTest {

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

    @Test
    void matMulIntegerSubtractsPerRowAndPerColumnZeroPoints() {
        Tensor a = Tensor.of(ElementType.UINT8, new long[] {2, 2}, new byte[] {(byte) 200, 10, 5, 7});
        Tensor b = Tensor.of(ElementType.INT8, new long[] {2, 2}, new byte[] {-3, 2, 4, -1});
        Tensor azp = Tensor.of(ElementType.UINT8, new long[] {2}, new byte[] {100, 5});
        Tensor bzp = Tensor.of(ElementType.INT8, new long[] {2}, new byte[] {1, 0});
        Tensor y = run1("MatMulInteger", 10, new Tensor[] {a, b, azp, bzp});
        assertEquals(ElementType.INT32, y.type());
        // A - zp by row: (100, -90), (0, 2); B - zp by column: (-4, 3), (2, -1)
        assertArrayEquals(new int[] {-670, 290, 6, -2}, y.ints());
    }
}
