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

    /** Random 8-bit values; with {@code extreme} only the ends of the type's range, which give the largest products. */
    private static Tensor bytes(ElementType type, long[] shape, java.util.SplittableRandom r, boolean extreme) {
        byte[] v = new byte[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < v.length; i++) {
            int lo = type == ElementType.UINT8 ? 0 : -128;
            int x = extreme ? (r.nextBoolean() ? lo : lo + 255) : lo + r.nextInt(256);
            v[i] = (byte) x;
        }
        return Tensor.of(type, shape, v);
    }

    private static long value(Tensor t, int i) {
        byte b = ((byte[]) t.data())[i];
        return t.type() == ElementType.UINT8 ? b & 0xff : b;
    }

    @Test
    void matMulIntegerEqualsAReferenceProductBitForBit() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(17);
        for (int trial = 0; trial < 60; trial++) {
            ElementType at = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            ElementType bt = r.nextBoolean() ? ElementType.UINT8 : ElementType.INT8;
            boolean extreme = trial % 3 == 0;
            int m = 1 + r.nextInt(9);
            // reductions past one exact block (514 steps for the extremes) as well as short ones
            int k = trial % 5 == 0 ? 600 + r.nextInt(1200) : 1 + r.nextInt(70);
            int n = 1 + r.nextInt(40);
            int batch = 1 + r.nextInt(3);
            Tensor a = bytes(at, new long[] {batch, m, k}, r, extreme);
            Tensor b = bytes(bt, new long[] {k, n}, r, extreme);
            Tensor azp = trial % 4 == 0 ? null : r.nextBoolean() ? bytes(at, new long[0], r, extreme)
                    : bytes(at, new long[] {m}, r, extreme);
            Tensor bzp = trial % 4 == 1 ? null : r.nextBoolean() ? bytes(bt, new long[0], r, extreme)
                    : bytes(bt, new long[] {n}, r, extreme);
            int[] want = new int[batch * m * n];
            for (int p = 0; p < batch; p++) {
                for (int i = 0; i < m; i++) {
                    long za = azp == null ? 0 : value(azp, azp.size() == 1 ? 0 : i);
                    for (int j = 0; j < n; j++) {
                        long zb = bzp == null ? 0 : value(bzp, bzp.size() == 1 ? 0 : j);
                        long sum = 0;
                        for (int q = 0; q < k; q++) {
                            sum += (value(a, (p * m + i) * k + q) - za) * (value(b, q * n + j) - zb);
                        }
                        want[(p * m + i) * n + j] = (int) sum;
                    }
                }
            }
            String what = "trial " + trial + ": " + at + " [" + batch + "," + m + "," + k + "] x " + bt + " [" + k
                    + "," + n + "]";
            Tensor[] inputs = {a, b, azp, bzp};
            assertArrayEquals(want, run1("MatMulInteger", 10, inputs).ints(), what + ", B fed at run time");
            int[] constants = bzp == null ? new int[] {1} : new int[] {1, 3};
            assertArrayEquals(want, run("MatMulInteger", 10, inputs, 1, constants).get(0).ints(),
                    what + ", B a constant weight");
        }
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
