package io.ortex.ep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.spi.NodeView;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx.GraphProto;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GroupPlannerTest {
    private static List<List<String>> plan(GraphProto g, Set<String> unsupported) {
        OnnxModel m = ModelReader.read(Models.model(g, 17), null);
        return GroupPlanner.plan(m.graph().nodes(), n -> !unsupported.contains(n.name())).stream()
                .map(group -> group.stream().map(NodeView::name).toList()).toList();
    }

    /** a feeds b directly and through u: fusing a and b around an unsupported u would be a cycle. */
    @Test
    void aPathThroughAnUnsupportedNodeSplitsTheGroup() {
        GraphProto g = GraphProto.newBuilder().setName("diamond")
                .addInput(Models.value("x", Models.FLOAT, 2))
                .addOutput(Models.value("y", Models.FLOAT, 2))
                .addNode(Models.node("a", "Relu", "x", "p"))
                .addNode(Models.node("u", "Neg", "p", "q"))
                .addNode(Models.node("b", "Add", "p,q", "y"))
                .build();
        assertEquals(List.of(List.of("a"), List.of("b")), plan(g, Set.of("u")));
        assertEquals(List.of(List.of("a", "u", "b")), plan(g, Set.of()));
    }

    @Test
    void independentBranchesBecomeSeparateGroups() {
        GraphProto g = GraphProto.newBuilder().setName("branches")
                .addInput(Models.value("x", Models.FLOAT, 2))
                .addOutput(Models.value("y", Models.FLOAT, 2))
                .addOutput(Models.value("z", Models.FLOAT, 2))
                .addNode(Models.node("a", "Relu", "x", "y"))
                .addNode(Models.node("b", "Neg", "x", "z"))
                .build();
        assertEquals(List.of(List.of("a"), List.of("b")), plan(g, Set.of()));
    }

    /** Two groups that would each feed the other through unsupported nodes are never formed. */
    @Test
    void groupsNeverDependOnEachOtherInACycle() {
        GraphProto g = GraphProto.newBuilder().setName("crossing")
                .addInput(Models.value("x", Models.FLOAT, 2))
                .addOutput(Models.value("y", Models.FLOAT, 2))
                .addNode(Models.node("a1", "Relu", "x", "a"))
                .addNode(Models.node("u1", "Neg", "a", "ua"))
                .addNode(Models.node("b1", "Relu", "x", "b"))
                .addNode(Models.node("u2", "Neg", "b", "ub"))
                .addNode(Models.node("a2", "Add", "a,ub", "c"))
                .addNode(Models.node("b2", "Add", "b,ua", "d"))
                .addNode(Models.node("out", "Add", "c,d", "y"))
                .build();
        assertEquals(List.of(List.of("a1"), List.of("b1"), List.of("a2", "b2", "out")),
                plan(g, Set.of("u1", "u2")).stream().map(l -> l.stream().sorted().toList()).toList());
    }
}
