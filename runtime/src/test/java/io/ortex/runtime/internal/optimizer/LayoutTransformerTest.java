package io.ortex.runtime.internal.optimizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ortex.api.Tensor;
import io.ortex.api.spi.DataLayout;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The NHWC conversion on hand-built graphs: where transposes go, which ones cancel (through element-wise ops, never
 * across a graph output or a value a second node reads), constants transposed in place of a Transpose node, a
 * Resize's scales reordered, and the NHWC domain imported at the ONNX opset.
 */
class LayoutTransformerTest {
    private static NodeProto node(String name, String op, List<String> in, String... out) {
        return NodeProto.newBuilder().setName(name).setOpType(op).addAllInput(in).addAllOutput(List.of(out)).build();
    }

    private static ValueInfoProto value(String name) {
        return ValueInfoProto.newBuilder().setName(name).build();
    }

    private static ModelProto model(GraphProto.Builder g) {
        return ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setVersion(17)).build();
    }

    /** Each node as {@code op:inputs->outputs}, the NHWC domain shown as {@code nhwc.}. */
    private static List<String> nodes(ModelProto m) {
        return m.getGraph().getNodeList().stream().map(n -> (n.getDomain().equals(DataLayout.NHWC_DOMAIN) ? "nhwc."
                : "") + n.getOpType() + perm(n) + ":" + String.join(",", n.getInputList()) + "->"
                + String.join(",", n.getOutputList())).toList();
    }

    private static String perm(NodeProto n) {
        return n.getAttributeList().stream().filter(a -> a.getName().equals("perm")).findFirst()
                .map(a -> a.getIntsList().toString().replace(" ", "")).orElse("");
    }

    private static GraphProto.Builder convReluConv() {
        return GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(new float[4 * 3], 4, 3, 1, 1), "w1"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(new float[2 * 4], 2, 4, 1, 1), "w2"))
                .addNode(node("conv1", "Conv", List.of("x", "w1"), "c1"))
                .addNode(node("relu", "Relu", List.of("c1"), "r"))
                .addNode(node("conv2", "Conv", List.of("r", "w2"), "y"));
    }

    @Test
    void nothingToConvertLeavesTheModelAsItIs() {
        ModelProto m = model(convReluConv());
        assertSame(m, LayoutTransformer.toChannelsLast(m, Map.of()));
    }

    @Test
    void aConvReluConvChainKeepsOnePairOfTransposesAndTheWeightsAsTheyWere() {
        ModelProto m = model(convReluConv());
        ModelProto o = LayoutTransformer.toChannelsLast(m, Map.of("c1", 4, "y", 4));
        assertEquals(List.of(
                "Transpose[0,2,3,1]:x->x_nhwc",
                "nhwc.Conv:x_nhwc,w1->c1_nhwc",
                "Relu:c1_nhwc->r_nhwc_1",
                "nhwc.Conv:r_nhwc_1,w2->y_nhwc",
                "Transpose[0,3,1,2]:y_nhwc->y"), nodes(o));
        assertEquals(m.getGraph().getInitializerList(), o.getGraph().getInitializerList(),
                "a Conv's weight keeps the ONNX layout");
        assertEquals(List.of("", DataLayout.NHWC_DOMAIN + ":17"), o.getOpsetImportList().stream()
                .map(i -> i.getDomain().isEmpty() ? "" : i.getDomain() + ":" + i.getVersion()).toList());
    }

    @Test
    void aValueReadTwiceOrAGraphOutputKeepsItsTranspose() {
        ModelProto m = model(convReluConv().addOutput(value("c1")));
        ModelProto o = LayoutTransformer.toChannelsLast(m, Map.of("c1", 4, "y", 4));
        assertEquals(List.of(
                "Transpose[0,2,3,1]:x->x_nhwc",
                "nhwc.Conv:x_nhwc,w1->c1_nhwc",
                "Transpose[0,3,1,2]:c1_nhwc->c1",
                "Relu:c1->r",
                "Transpose[0,2,3,1]:r->r_nhwc",
                "nhwc.Conv:r_nhwc,w2->y_nhwc",
                "Transpose[0,3,1,2]:y_nhwc->y"), nodes(o), "c1 is a graph output: it stays channels first");
    }

    @Test
    void aTransposeOfAConstantBecomesAConstant() {
        float[] data = new float[2 * 3 * 2 * 2];
        for (int i = 0; i < data.length; i++) {
            data[i] = i;
        }
        ModelProto m = model(GraphProto.newBuilder().addOutput(value("y"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(data, 2, 3, 2, 2), "k"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(new float[3], 1, 3, 1, 1), "w"))
                .addNode(node("conv", "Conv", List.of("k", "w"), "y")));
        ModelProto o = LayoutTransformer.toChannelsLast(m, Map.of("y", 4));
        assertEquals(List.of("nhwc.Conv:k_nhwc,w->y_nhwc", "Transpose[0,3,1,2]:y_nhwc->y"), nodes(o));
        Tensor folded = TensorCodec.fromProto(o.getGraph().getInitializerList().stream()
                .filter(t -> t.getName().equals("k_nhwc")).findFirst().orElseThrow());
        assertArrayEquals(new long[] {2, 2, 2, 3}, folded.shape());
        // element [n, h, w, c] of the folded constant is element [n, c, h, w] of the original
        assertEquals(data[((1 * 3 + 2) * 2 + 0) * 2 + 1], folded.floats()[((1 * 2 + 0) * 2 + 1) * 3 + 2]);
        assertEquals(List.of("w", "k_nhwc"), o.getGraph().getInitializerList().stream().map(t -> t.getName())
                .toList(), "the original constant nothing reads any more is dropped");
    }

    @Test
    void aResizesScalesFollowTheDataIntoChannelsLastOrder() {
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(new float[] {1, 1, 2, 3}, 4), "scales"))
                .addNode(node("resize", "Resize", List.of("x", "", "scales"), "y")));
        ModelProto o = LayoutTransformer.toChannelsLast(m, Map.of("y", 4));
        assertEquals(List.of("Transpose[0,2,3,1]:x->x_nhwc", "nhwc.Resize:x_nhwc,,scales_nhwc->y_nhwc",
                "Transpose[0,3,1,2]:y_nhwc->y"), nodes(o));
        Tensor scales = TensorCodec.fromProto(o.getGraph().getInitializerList().stream()
                .filter(t -> t.getName().equals("scales_nhwc")).findFirst().orElseThrow());
        assertArrayEquals(new float[] {1, 2, 3, 1}, scales.floats());
    }

    @Test
    void aResizeWhoseScalesAreComputedIsNotConverted() {
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addInput(value("s")).addOutput(value("y"))
                .addNode(node("resize", "Resize", List.of("x", "", "s"), "y")));
        assertSame(m, LayoutTransformer.toChannelsLast(m, Map.of("y", 4)));
    }

    @Test
    void namesTheModelAlreadyUsesAreNotTakenTwice() {
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addOutput(value("x_nhwc"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(new float[3], 1, 3, 1, 1), "w"))
                .addNode(node("conv", "Conv", List.of("x", "w"), "y"))
                .addNode(node("copy", "Identity", List.of("x"), "x_nhwc")));
        ModelProto o = LayoutTransformer.toChannelsLast(m, Map.of("y", 4));
        assertEquals(List.of("Transpose[0,2,3,1]:x->x_nhwc_1", "nhwc.Conv:x_nhwc_1,w->y_nhwc",
                "Transpose[0,3,1,2]:y_nhwc->y", "Identity:x->x_nhwc"), nodes(o));
    }

    @Test
    void aNameASubgraphDefinesIsNotShadowed() {
        GraphProto branch = GraphProto.newBuilder().addOutput(value("x_nhwc"))
                .addNode(node("inner", "Identity", List.of("x"), "x_nhwc")).build();
        NodeProto ifNode = node("if", "If", List.of("cond"), "z").toBuilder()
                .addAttribute(io.ortex.onnx.proto.Onnx.AttributeProto.newBuilder().setName("then_branch")
                        .setType(io.ortex.onnx.proto.Onnx.AttributeProto.AttributeType.GRAPH).setG(branch))
                .addAttribute(io.ortex.onnx.proto.Onnx.AttributeProto.newBuilder().setName("else_branch")
                        .setType(io.ortex.onnx.proto.Onnx.AttributeProto.AttributeType.GRAPH).setG(branch))
                .build();
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addInput(value("cond"))
                .addOutput(value("y")).addOutput(value("z"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(new float[3], 1, 3, 1, 1), "w"))
                .addNode(node("conv", "Conv", List.of("x", "w"), "y")).addNode(ifNode));
        ModelProto o = LayoutTransformer.toChannelsLast(m, Map.of("y", 4));
        assertEquals("Transpose[0,2,3,1]:x->x_nhwc_1", nodes(o).get(0));
    }

    @Test
    void theTwoPermutationsUndoEachOther() {
        for (int rank = 3; rank <= 6; rank++) {
            long[] last = LayoutTransformer.channelsLast(rank);
            long[] first = LayoutTransformer.channelsFirst(rank);
            for (int i = 0; i < rank; i++) {
                assertEquals(i, last[(int) first[i]]);
            }
        }
    }
}
