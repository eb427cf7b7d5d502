package io.ortex.runtime.internal.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ortex.api.GraphOptimizationLevel;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The BASIC optimizer's Identity removal and dead node elimination on hand-built graphs. */
class BasicGraphOptimizerTest {
    private static NodeProto node(String name, String op, List<String> in, String out) {
        return NodeProto.newBuilder().setName(name).setOpType(op).addAllInput(in).addOutput(out).build();
    }

    private static ValueInfoProto value(String name) {
        return ValueInfoProto.newBuilder().setName(name).build();
    }

    private static ModelProto model(GraphProto.Builder g) {
        return ModelProto.newBuilder().setIrVersion(8).setGraph(g).build();
    }

    private static List<String> ops(ModelProto m) {
        return m.getGraph().getNodeList().stream().map(n -> n.getName() + ":" + String.join(",", n.getInputList())
                + "->" + String.join(",", n.getOutputList())).toList();
    }

    @Test
    void disableAllReturnsTheModelUnchanged() {
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addNode(node("id", "Identity", List.of("x"), "y")));
        assertSame(m, BasicGraphOptimizer.optimize(m, GraphOptimizationLevel.DISABLE_ALL));
    }

    @Test
    void identityFromAGraphInputToAGraphOutputStays() {
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addNode(node("id", "Identity", List.of("x"), "y")));
        assertEquals(List.of("id:x->y"), ops(BasicGraphOptimizer.optimize(m, GraphOptimizationLevel.BASIC)));
    }

    @Test
    void chainsCollapseAndTheProducerTakesTheGraphOutputsName() {
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addValueInfo(value("a")).addValueInfo(value("b"))
                .addNode(node("id1", "Identity", List.of("x"), "a"))
                .addNode(node("relu", "Relu", List.of("a"), "b"))
                .addNode(node("id2", "Identity", List.of("b"), "c"))
                .addNode(node("id3", "Identity", List.of("c"), "y")));
        ModelProto o = BasicGraphOptimizer.optimize(m, GraphOptimizationLevel.EXTENDED);
        assertEquals(List.of("relu:x->y"), ops(o));
        assertEquals(0, o.getGraph().getValueInfoCount(), "value infos of names that are gone are dropped");
    }

    @Test
    void deadNodesAndTheirInitializersGoButGraphOutputsAndSubgraphReadsStay() {
        TensorProto k = TensorProto.newBuilder().setName("k").setDataType(1).addFloatData(1f).build();
        GraphProto body = GraphProto.newBuilder().addOutput(value("i"))
                .addNode(node("inner", "Identity", List.of("a"), "i")).build();
        NodeProto withBody = node("if", "If", List.of("cond"), "z").toBuilder().addAttribute(AttributeProto
                .newBuilder().setName("then_branch").setType(AttributeProto.AttributeType.GRAPH).setG(body)).build();
        ModelProto m = model(GraphProto.newBuilder().addInput(value("x")).addInput(value("cond"))
                .addOutput(value("z")).addOutput(value("y")).addInitializer(k)
                .addNode(node("id", "Identity", List.of("x"), "a"))
                .addNode(node("dead", "Add", List.of("a", "k"), "d"))
                .addNode(node("neg", "Neg", List.of("x"), "y"))
                .addNode(withBody));
        ModelProto o = BasicGraphOptimizer.optimize(m, GraphOptimizationLevel.BASIC);
        assertEquals(List.of("id:x->a", "neg:x->y", "if:cond->z"), ops(o),
                "the Identity stays because a subgraph reads its output by name");
        assertEquals(0, o.getGraph().getInitializerCount());
    }
}
