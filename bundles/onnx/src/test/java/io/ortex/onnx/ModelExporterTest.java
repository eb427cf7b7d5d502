package io.ortex.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelExporterTest {
    /** x -> MatMul(W) -> Add(B) -> Relu -> y, with unnamed Relu and an undeclared intermediate. */
    private static OnnxModel chain() throws Exception {
        GraphProto g = GraphProto.newBuilder().setName("chain")
                .addInput(TestModels.value("x", 1, 2))
                .addOutput(TestModels.value("y", 1, 2))
                .addInitializer(TestModels.floats("W", new float[] {1, 2, 3, 4}, 2, 2))
                .addInitializer(TestModels.floats("B", new float[] {0.5f, -0.5f}, 2))
                .addNode(TestModels.node("mm", "MatMul", "x,W", "h"))
                .addNode(TestModels.node("add", "Add", "h,B", "z"))
                .addNode(TestModels.node("", "Relu", "z", "y"))
                .build();
        return ModelReader.read(TestModels.model(g).toByteArray(), null);
    }

    @Test
    void theWholeGraphRoundTrips() throws Exception {
        OnnxModel m = chain();
        ModelExport e = m.graph().exportModel(ModelExportOptions.DEFAULT);
        ModelProto p = ModelProto.parseFrom(e.bytes());
        assertEquals(m.irVersion(), p.getIrVersion());
        assertEquals(m.proto().getOpsetImportList(), p.getOpsetImportList());
        assertEquals(List.of("x"), p.getGraph().getInputList().stream().map(ValueInfoProto::getName).toList());
        assertEquals(List.of("y"), p.getGraph().getOutputList().stream().map(ValueInfoProto::getName).toList());
        assertEquals(2, p.getGraph().getInitializerCount());
        assertEquals(List.of("mm", "add", "Relu_2"), e.nodeNames());
        assertEquals("Relu_2", p.getGraph().getNode(2).getName());
        assertTrue(e.externalDataFolder().isEmpty());
        OnnxModel again = ModelReader.read(e.bytes(), null);
        assertEquals(3, again.graph().nodes().size());
    }

    @Test
    void aViewOfSomeNodesTakesItsBoundaryAndItsConstants() throws Exception {
        OnnxModel m = chain();
        List<NodeView> nodes = m.graph().nodes();
        GraphView tail = m.graph().viewOf(List.of(nodes.get(1), nodes.get(2)));
        assertEquals(List.of("h"), tail.inputs().stream().map(v -> v.name()).toList());
        assertEquals(List.of("B"), tail.initializers().stream().map(v -> v.name()).toList());
        assertEquals(List.of("y"), tail.outputs().stream().map(v -> v.name()).toList());
        ModelExport untyped = tail.exportModel(ModelExportOptions.DEFAULT);
        GraphProto g = ModelProto.parseFrom(untyped.bytes()).getGraph();
        assertFalse(g.getInput(0).hasType(), "h is not declared in the source");
        assertEquals(List.of("B"), g.getInitializerList().stream().map(TensorProto::getName).toList());
        ModelExport typed = tail.exportModel(ModelExportOptions.DEFAULT
                .withInputElementTypes(Map.of("h", ElementType.FLOAT)));
        ValueInfoProto h = ModelProto.parseFrom(typed.bytes()).getGraph().getInput(0);
        assertEquals(TensorProto.DataType.FLOAT_VALUE, h.getType().getTensorType().getElemType());
        assertFalse(h.getType().getTensorType().hasShape());

        GraphView head = m.graph().viewOf(List.of(nodes.get(0)));
        assertEquals(List.of("h"), head.outputs().stream().map(v -> v.name()).toList());
        assertThrows(InvalidArgumentException.class, () -> head.viewOf(List.of(nodes.get(2))));
        assertThrows(InvalidArgumentException.class, () -> m.graph().viewOf(List.of()));
    }

    @Test
    void externalDataIsReferencedOrCopied(@TempDir Path dir) throws Exception {
        ByteBuffer data = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        data.asFloatBuffer().put(new float[] {1, 2, 3, 4});
        Files.write(dir.resolve("w.bin"), data.array());
        GraphProto g = GraphProto.newBuilder().setName("ext")
                .addInput(TestModels.value("x", 1, 2))
                .addOutput(TestModels.value("y", 1, 2))
                .addInitializer(TestModels.external("W", "w.bin", 0, 16, 2, 2))
                .addNode(TestModels.node("mm", "MatMul", "x,W", "y"))
                .build();
        Path file = TestModels.write(dir, "ext.onnx", TestModels.model(g));
        OnnxModel m = ModelReader.read(file);
        ModelExport ref = m.graph().exportModel(ModelExportOptions.DEFAULT);
        assertEquals(dir.toRealPath(), ref.externalDataFolder().orElseThrow().toRealPath());
        TensorProto w = ModelProto.parseFrom(ref.bytes()).getGraph().getInitializer(0);
        assertEquals(TensorProto.DataLocation.EXTERNAL, w.getDataLocation());

        ModelExport copied = m.graph().exportModel(new ModelExportOptions(false, Map.of()));
        assertTrue(copied.externalDataFolder().isEmpty());
        TensorProto c = ModelProto.parseFrom(copied.bytes()).getGraph().getInitializer(0);
        assertEquals(16, c.getRawData().size());
        assertEquals(0, c.getExternalDataCount());
        assertEquals(2f, TensorCodec.fromProto(c).floats()[1]);
    }

    @Test
    void subgraphNodesAreCopiedWhole() throws Exception {
        GraphProto then = GraphProto.newBuilder().setName("then")
                .addOutput(TestModels.value("t", 1, 2))
                .addNode(TestModels.node("neg", "Neg", "x", "t")).build();
        GraphProto otherwise = GraphProto.newBuilder().setName("else")
                .addOutput(TestModels.value("e", 1, 2))
                .addNode(TestModels.node("id", "Identity", "x", "e")).build();
        GraphProto g = GraphProto.newBuilder().setName("cf")
                .addInput(TestModels.value("x", 1, 2))
                .addInput(ValueInfoProto.newBuilder().setName("c").setType(
                        io.ortex.onnx.proto.Onnx.TypeProto.newBuilder().setTensorType(
                                io.ortex.onnx.proto.Onnx.TypeProto.Tensor.newBuilder()
                                        .setElemType(TensorProto.DataType.BOOL_VALUE))))
                .addOutput(TestModels.value("y", 1, 2))
                .addNode(TestModels.node("if", "If", "c", "y", TestModels.graphAttr("then_branch", then),
                        TestModels.graphAttr("else_branch", otherwise)))
                .build();
        OnnxModel m = ModelReader.read(TestModels.model(g).toByteArray(), null);
        GraphView view = m.graph().viewOf(m.graph().nodes());
        assertEquals(List.of("c", "x"), view.inputs().stream().map(v -> v.name()).toList());
        ModelProto p = ModelProto.parseFrom(view.exportModel(ModelExportOptions.DEFAULT).bytes());
        assertEquals(then, p.getGraph().getNode(0).getAttribute(0).getG());
    }
}
