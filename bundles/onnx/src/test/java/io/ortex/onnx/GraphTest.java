package io.ortex.onnx;

import static io.ortex.onnx.ModelReaderTest.fails;
import static io.ortex.onnx.TestModels.addGraph;
import static io.ortex.onnx.TestModels.floats;
import static io.ortex.onnx.TestModels.graphAttr;
import static io.ortex.onnx.TestModels.model;
import static io.ortex.onnx.TestModels.node;
import static io.ortex.onnx.TestModels.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.AttributeType;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.SparseTensorProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class GraphTest {
    private static Graph load(GraphProto g) {
        return ModelReader.read(model(g).toByteArray(), null).graph();
    }

    private static List<String> names(List<? extends NodeView> nodes) {
        return nodes.stream().map(NodeView::displayName).collect(Collectors.toList());
    }

    @Test
    void producersConsumersInputsOutputsAndInitializers() {
        Graph g = load(addGraph().toBuilder().addNode(node("relu", "Relu", "Y", "Z"))
                .addNode(node("", "Neg", "Y", "N")).addOutput(value("Z", 2, 2)).build());
        assertEquals("add", g.name());
        Node add = g.nodeList().get(0);
        ValueView x = g.value("X").orElseThrow();
        ValueView w = g.value("W").orElseThrow();
        ValueView y = g.value("Y").orElseThrow();
        assertTrue(x.isGraphInput() && !x.isInitializer() && x.producer().isEmpty());
        assertTrue(w.isInitializer() && w.isConstantInitializer() && !w.isGraphInput());
        assertArrayEquals(new float[] {1, 2, 3, 4}, w.initializer().orElseThrow().floats());
        assertSame(add, y.producer().orElseThrow());
        assertEquals(0, ((Value) y).producerOutput());
        assertEquals(List.of("relu", "Neg_2"), names(y.consumers()));
        assertEquals(List.of(x, w), add.inputs());
        assertEquals(List.of(y), add.outputs());
        assertEquals(List.of("X"), g.inputs().stream().map(ValueView::name).collect(Collectors.toList()));
        assertEquals(List.of("Y", "Z"), g.outputs().stream().map(ValueView::name).collect(Collectors.toList()));
        assertTrue(y.isGraphOutput());
        assertEquals(List.of(w), g.initializers());
        TensorInfo info = x.typeInfo().orElseThrow();
        assertEquals(ElementType.FLOAT, info.type());
        assertArrayEquals(new long[] {2, 2}, info.dims());
        assertEquals(8, g.irVersion());
        assertTrue(g.modelPath().isEmpty());
        assertTrue(g.parentNode().isEmpty());
        assertEquals("node 'add' (Add)", add.toString());
        assertTrue(g.value("nothing").isEmpty());
    }

    @Test
    void initializerAlsoAGraphInputIsNotConstant() {
        Graph g = load(addGraph().toBuilder().addInput(value("W", 2, 2)).build());
        ValueView w = g.value("W").orElseThrow();
        assertTrue(w.isInitializer() && w.isGraphInput());
        assertFalse(w.isConstantInitializer());
    }

    @Test
    void initializerWithoutDeclarationGetsItsTypeFromTheTensor() {
        TensorInfo info = load(addGraph()).value("W").orElseThrow().typeInfo().orElseThrow();
        assertEquals(ElementType.FLOAT, info.type());
        assertArrayEquals(new long[] {2, 2}, info.dims());
    }

    @Test
    void emptyOptionalInputsAndOutputsAreNull() {
        Graph g = load(GraphProto.newBuilder().addInput(value("X", 1))
                .addNode(node("clip", "Clip", "X,,", "Y,")).addOutput(value("Y", 1)).build());
        Node clip = g.nodeList().get(0);
        assertEquals(3, clip.inputs().size());
        assertNull(clip.inputs().get(1));
        assertEquals(2, clip.outputs().size());
        assertNull(clip.outputs().get(1));
    }

    @Test
    void topologicalOrderKeepsModelOrderWhereDependenciesAllow() {
        Graph g = load(GraphProto.newBuilder().addInput(value("X", 1))
                .addNode(node("c", "Relu", "b", "C"))
                .addNode(node("independent", "Neg", "X", "I"))
                .addNode(node("b", "Relu", "a", "b"))
                .addNode(node("a", "Relu", "X", "a"))
                .addOutput(value("C", 1)).addOutput(value("I", 1)).build());
        assertEquals(List.of("independent", "a", "b", "c"), names(g.nodes()));
        assertEquals(List.of(1, 3, 2, 0), g.nodeList().stream().map(Node::id).collect(Collectors.toList()));
    }

    @Test
    void valueInfoSetsTypesOfIntermediateValues() {
        Graph g = load(addGraph().toBuilder().addValueInfo(value("Y", 2, 2)).build());
        assertArrayEquals(new long[] {2, 2}, g.value("Y").orElseThrow().typeInfo().orElseThrow().dims());
    }

    /** A branch of an If: Out = Relu(outerName), reading a value of the enclosing graph. */
    private static GraphProto branch(String name, String outerName) {
        return GraphProto.newBuilder().setName(name).addNode(node(name + "_relu", "Relu", outerName, name + "_out"))
                .addOutput(value(name + "_out", 1)).build();
    }

    @Test
    void ifBranchesReadingOuterValuesRecordImplicitInputs() {
        // the If node is declared before the node producing the value its branches read
        GraphProto main = GraphProto.newBuilder().setName("main")
                .addInput(value("cond", 1)).addInput(value("X", 1))
                .addNode(node("if", "If", "cond", "R", graphAttr("then_branch", branch("then", "outer")),
                        graphAttr("else_branch", branch("else", "X"))))
                .addNode(node("producer", "Neg", "X", "outer"))
                .addOutput(value("R", 1)).build();
        Graph g = load(main);
        assertEquals(List.of("producer", "if"), names(g.nodes()));
        Node ifNode = g.nodeList().get(1);
        assertEquals(List.of("outer", "X"), ifNode.implicitInputs().stream().map(ValueView::name)
                .collect(Collectors.toList()));
        ValueView outer = g.value("outer").orElseThrow();
        assertSame(outer, ifNode.implicitInputs().get(0));
        assertTrue(outer.consumers().contains(ifNode), "the If node consumes the value its branches read");
        assertTrue(g.value("X").orElseThrow().consumers().contains(ifNode));
        assertEquals(List.of("then_branch", "else_branch"), List.copyOf(ifNode.subgraphs().keySet()));
        Graph then = (Graph) ifNode.subgraphs().get("then_branch");
        assertSame(ifNode, then.parentNode().orElseThrow());
        Value proxy = then.localValue("outer");
        assertTrue(proxy.isFromOuterScope());
        assertSame(outer, proxy.outerValue());
        assertEquals(outer.typeInfo(), proxy.typeInfo());
        assertSame(then.nodeList().get(0), proxy.consumers().get(0));
        assertSame(proxy, then.nodeList().get(0).inputs().get(0));
        assertTrue(then.value("cond").isPresent(), "values of enclosing graphs are visible");
        assertEquals(g.opsetImports(), then.opsetImports());
        assertEquals(AttributeType.GRAPH, ifNode.attributes().get("else_branch").type());
    }

    @Test
    void valuesTwoLevelsOutAreImplicitInputsOfBothParents() {
        GraphProto inner = branch("inner", "deep");
        GraphProto middle = GraphProto.newBuilder().setName("middle")
                .addNode(node("inner_if", "If", "c2", "m_out", graphAttr("then_branch", inner),
                        graphAttr("else_branch", branch("e2", "c2"))))
                .addNode(node("c2_maker", "Identity", "cond", "c2"))
                .addOutput(value("m_out", 1)).build();
        Graph g = load(GraphProto.newBuilder().addInput(value("cond", 1)).addInput(value("deep", 1))
                .addNode(node("outer_if", "If", "cond", "R", graphAttr("then_branch", middle),
                        graphAttr("else_branch", branch("e1", "deep"))))
                .addOutput(value("R", 1)).build());
        Node outerIf = g.nodeList().get(0);
        assertEquals(List.of("deep", "cond"), outerIf.implicitInputs().stream().map(ValueView::name)
                .collect(Collectors.toList()));
        Graph mid = (Graph) outerIf.subgraphs().get("then_branch");
        assertEquals(List.of("c2_maker", "inner_if"), names(mid.nodes()));
        Node innerIf = mid.nodeList().get(1);
        // "c2" is local to the middle graph and read by the inner else branch: it orders c2_maker first
        assertEquals(List.of("deep", "c2"), innerIf.implicitInputs().stream().map(ValueView::name)
                .collect(Collectors.toList()));
        assertSame(mid.localValue("deep"), innerIf.implicitInputs().get(0));
        assertSame(g.value("deep").orElseThrow(), mid.localValue("deep").outerValue());
    }

    @Test
    void subgraphOutputMayBeAnOuterValue() {
        GraphProto passThrough = GraphProto.newBuilder().setName("pass").addOutput(value("X", 1)).build();
        Graph g = load(GraphProto.newBuilder().addInput(value("cond", 1)).addInput(value("X", 1))
                .addNode(node("if", "If", "cond", "R", graphAttr("then_branch", passThrough),
                        graphAttr("else_branch", passThrough)))
                .addOutput(value("R", 1)).build());
        Node ifNode = g.nodeList().get(0);
        assertEquals(List.of("X"), ifNode.implicitInputs().stream().map(ValueView::name)
                .collect(Collectors.toList()));
        GraphView then = ifNode.subgraphs().get("then_branch");
        assertTrue(then.outputs().get(0).isFromOuterScope());
    }

    @Test
    void loopAndScanBodiesAreSubgraphs() {
        GraphProto body = GraphProto.newBuilder().setName("body").addInput(value("i", 1)).addInput(value("c", 1))
                .addNode(node("step", "Add", "i,X", "s")).addOutput(value("c", 1)).addOutput(value("s", 1))
                .build();
        Graph g = load(GraphProto.newBuilder().addInput(value("X", 1)).addInput(value("n", 1))
                .addInput(value("c0", 1))
                .addNode(node("loop", "Loop", "n,c0", "S", graphAttr("body", body)))
                .addNode(node("scan", "Scan", "X", "T", graphAttr("body", body)))
                .addOutput(value("S", 1)).addOutput(value("T", 1)).build());
        for (Node n : g.nodeList()) {
            GraphView b = n.subgraphs().get("body");
            assertEquals(List.of("step"), names(b.nodes()));
            assertEquals(List.of("X"), n.implicitInputs().stream().map(ValueView::name)
                    .collect(Collectors.toList()));
        }
    }

    @Test
    void graphsAttributeBuildsEverySubgraph() {
        AttributeProto graphs = AttributeProto.newBuilder().setName("branches")
                .setType(AttributeProto.AttributeType.GRAPHS).addGraphs(branch("a", "X")).addGraphs(branch("b", "X"))
                .build();
        Graph g = load(GraphProto.newBuilder().addInput(value("X", 1))
                .addNode(node("multi", "Custom", "", "R", graphs)).addOutput(value("R", 1)).build());
        List<GraphView> built = g.nodeList().get(0).attributes().get("branches").asGraphs();
        assertEquals(2, built.size());
        assertEquals("b", built.get(1).name());
    }

    @Test
    void cycleThroughASubgraphIsNamed() {
        GraphProto main = GraphProto.newBuilder().addInput(value("cond", 1))
                .addNode(node("loopy_if", "If", "cond", "y", graphAttr("then_branch", branch("t", "y")),
                        graphAttr("else_branch", branch("e", "cond"))))
                .addOutput(value("y", 1)).build();
        fails(InvalidModelException.class, () -> load(main), "cycle", "loopy_if");
    }

    @Test
    void unknownValueInASubgraphNamesTheSubgraph() {
        GraphProto main = GraphProto.newBuilder().addInput(value("cond", 1))
                .addNode(node("if", "If", "cond", "y", graphAttr("then_branch", branch("t", "ghost")),
                        graphAttr("else_branch", branch("e", "cond"))))
                .addOutput(value("y", 1)).build();
        fails(InvalidModelException.class, () -> load(main), "subgraph of node 'if'", "t_relu", "'ghost'");
    }

    @Test
    void everyAttributeTypeIsDecoded() {
        AttributeProto.Builder a = AttributeProto.newBuilder();
        Graph g = load(GraphProto.newBuilder().addInput(value("X", 1)).addNode(node("n", "Custom", "X", "Y",
                a.clear().setName("f").setType(AttributeProto.AttributeType.FLOAT).setF(1.5f).build(),
                a.clear().setName("i").setType(AttributeProto.AttributeType.INT).setI(-7).build(),
                a.clear().setName("s").setType(AttributeProto.AttributeType.STRING)
                        .setS(ByteString.copyFromUtf8("héllo")).build(),
                a.clear().setName("t").setType(AttributeProto.AttributeType.TENSOR)
                        .setT(floats("t", new float[] {3}, 1)).build(),
                a.clear().setName("fs").setType(AttributeProto.AttributeType.FLOATS).addFloats(1).addFloats(2)
                        .build(),
                a.clear().setName("is").setType(AttributeProto.AttributeType.INTS).addInts(4).addInts(5).build(),
                a.clear().setName("ss").setType(AttributeProto.AttributeType.STRINGS)
                        .addStrings(ByteString.copyFromUtf8("a")).build(),
                a.clear().setName("ts").setType(AttributeProto.AttributeType.TENSORS)
                        .addTensors(floats("u", new float[] {1, 2}, 2)).build()))
                .addOutput(value("Y", 1)).build());
        NodeView n = g.nodes().get(0);
        assertEquals(1.5f, n.floatAttr("f", 0));
        assertEquals(-7, n.intAttr("i", 0));
        assertEquals("héllo", n.attributes().get("s").asString());
        assertArrayEquals(new float[] {3}, n.attributes().get("t").asTensor().floats());
        assertArrayEquals(new float[] {1, 2}, n.attributes().get("fs").asFloats());
        assertArrayEquals(new long[] {4, 5}, n.attributes().get("is").asInts());
        assertEquals(List.of("a"), n.attributes().get("ss").asStrings());
        assertArrayEquals(new float[] {1, 2}, n.attributes().get("ts").asTensors().get(0).floats());
        assertTrue(n.subgraphs().isEmpty());
    }

    @Test
    void badTensorAttributeNamesNodeAndAttribute() {
        TensorProto bad = floats("t", new float[] {1, 2}, 3);
        AttributeProto attr = AttributeProto.newBuilder().setName("value")
                .setType(AttributeProto.AttributeType.TENSOR).setT(bad).build();
        GraphProto g = GraphProto.newBuilder().addNode(node("const", "Constant", "", "Y", attr))
                .addOutput(value("Y", 3)).build();
        fails(InvalidModelException.class, () -> load(g), "node 'const'", "attribute 'value'", "'t'");
        AttributeProto f8 = attr.toBuilder().setT(bad.toBuilder().setDataType(TensorProto.DataType.COMPLEX64_VALUE))
                .build();
        GraphProto g8 = g.toBuilder().setNode(0, node("const", "Constant", "", "Y", f8)).build();
        fails(NotImplementedException.class, () -> load(g8), "node 'const'", "attribute 'value'", "complex64");
    }

    @Test
    void unsupportedAttributesAndSparseInitializersAreNamed() {
        AttributeProto sparse = AttributeProto.newBuilder().setName("sp")
                .setType(AttributeProto.AttributeType.SPARSE_TENSOR).build();
        GraphProto g = GraphProto.newBuilder().addNode(node("n", "Constant", "", "Y", sparse))
                .addOutput(value("Y", 1)).build();
        fails(NotImplementedException.class, () -> load(g), "node 'n'", "attribute 'sp'", "SPARSE_TENSOR");
        GraphProto s = addGraph().toBuilder().addSparseInitializer(SparseTensorProto.newBuilder()).build();
        fails(NotImplementedException.class, () -> load(s), "sparse initializers");
        AttributeProto unnamed = AttributeProto.newBuilder().setType(AttributeProto.AttributeType.INT).build();
        GraphProto u = GraphProto.newBuilder().addNode(node("n", "Custom", "", "Y", unnamed))
                .addOutput(value("Y", 1)).build();
        fails(InvalidModelException.class, () -> load(u), "node 'n'", "without a name");
    }

    @Test
    void duplicateNamesAreRefused() {
        GraphProto twoInputs = addGraph().toBuilder().addInput(value("X", 2, 2)).build();
        fails(InvalidModelException.class, () -> load(twoInputs), "'X'", "twice");
        GraphProto twoInits = addGraph().toBuilder().addInitializer(floats("W", new float[] {1}, 1)).build();
        fails(InvalidModelException.class, () -> load(twoInits), "two initializers named 'W'");
        GraphProto outputIsInit = addGraph().toBuilder().addNode(node("clash", "Relu", "X", "W")).build();
        fails(InvalidModelException.class, () -> load(outputIsInit), "'W'", "clash");
    }

    @Test
    void graphIsNotModifiable() {
        Graph g = load(addGraph());
        assertThrows(UnsupportedOperationException.class, () -> g.nodes().clear());
        assertThrows(UnsupportedOperationException.class, () -> g.inputs().clear());
        assertThrows(UnsupportedOperationException.class, () -> g.nodeList().get(0).inputs().clear());
        assertThrows(UnsupportedOperationException.class,
                () -> g.value("W").orElseThrow().consumers().clear());
    }
}
