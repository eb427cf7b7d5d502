package io.ortex.runtime.internal.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The runtime's graph optimizers on hand-built graphs. */
class GraphOptimizerTest {
    private static NodeProto node(String name, String op, List<String> in, String... out) {
        return NodeProto.newBuilder().setName(name).setOpType(op).addAllInput(in).addAllOutput(List.of(out)).build();
    }

    private static ValueInfoProto value(String name) {
        return ValueInfoProto.newBuilder().setName(name).build();
    }

    private static ModelProto model(GraphProto.Builder g) {
        return ModelProto.newBuilder().setIrVersion(8).setGraph(g).build();
    }

    private static TensorProto floats(String name, float... v) {
        return TensorCodec.toProto(Tensor.ofFloats(v, v.length), name);
    }

    private static ModelProto optimize(ModelProto m, ConstantFolding folding, String... disabled) {
        return GraphOptimizer.optimize(m, GraphOptimizationLevel.ALL, Set.of(disabled), folding);
    }

    private static List<String> ops(ModelProto m) {
        return m.getGraph().getNodeList().stream().map(n -> n.getName() + ":" + String.join(",", n.getInputList())
                + "->" + String.join(",", n.getOutputList())).toList();
    }

    private static List<String> initializers(ModelProto m) {
        return m.getGraph().getInitializerList().stream().map(TensorProto::getName).toList();
    }

    @Test
    void constantNodesOfEveryFormBecomeInitializers() {
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"));
        g.addNode(node("c1", "Constant", List.of(), "a").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("value").setT(floats("ignored", 1, 2))));
        g.addNode(node("c2", "Constant", List.of(), "b").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("value_ints").addInts(3).addInts(4)));
        g.addNode(node("c3", "Constant", List.of(), "c").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("value_float").setF(0.5f)));
        g.addNode(node("c4", "Constant", List.of(), "d").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("value_string").setS(ByteString.copyFromUtf8("s"))));
        g.addNode(node("use", "Sum", List.of("x", "a", "b", "c", "d"), "y"));
        ModelProto o = optimize(model(g), null);
        assertEquals(List.of("use:x,a,b,c,d->y"), ops(o));
        Map<String, Tensor> init = new HashMap<>();
        o.getGraph().getInitializerList().forEach(t -> init.put(t.getName(), TensorCodec.fromProto(t)));
        assertEquals(List.of(1f, 2f), List.of(init.get("a").floats()[0], init.get("a").floats()[1]));
        assertEquals(4L, init.get("b").longs()[1]);
        assertEquals(0, init.get("c").rank());
        assertEquals("s", init.get("d").strings()[0]);
    }

    @Test
    void aConstantThatIsAGraphOutputStaysANode() {
        GraphProto.Builder g = GraphProto.newBuilder().addOutput(value("y"));
        g.addNode(node("c", "Constant", List.of(), "y").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("value_float").setF(1)));
        assertEquals(List.of("c:->y"), ops(optimize(model(g), null)));
    }

    @Test
    void equalNodesAndEqualSmallInitializersAreKeptOnce() {
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addInitializer(floats("k1", 0)).addInitializer(floats("k2", 0));
        g.addNode(node("s1", "Shape", List.of("x"), "s1"));
        g.addNode(node("s2", "Shape", List.of("x"), "s2"));
        g.addNode(node("g1", "Gather", List.of("s1", "k1"), "g1"));
        g.addNode(node("g2", "Gather", List.of("s2", "k2"), "g2"));
        g.addNode(node("add", "Add", List.of("g1", "g2"), "y"));
        ModelProto o = optimize(model(g), null);
        assertEquals(List.of("s1:x->s1", "g1:s1,k1->g1", "add:g1,g1->y"), ops(o));
        assertEquals(List.of("k1"), initializers(o));
    }

    @Test
    void nodesThatDrawRandomNumbersOrWriteGraphOutputsAreNotMerged() {
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addOutput(value("z")).addOutput(value("w"));
        g.addNode(node("r1", "RandomUniformLike", List.of("x"), "r1"));
        g.addNode(node("r2", "RandomUniformLike", List.of("x"), "r2"));
        g.addNode(node("n1", "Neg", List.of("x"), "y"));
        g.addNode(node("n2", "Neg", List.of("x"), "z"));
        g.addNode(node("add", "Add", List.of("r1", "r2"), "w"));
        assertEquals(5, ops(optimize(model(g), null)).size());
    }

    @Test
    void constantFoldingReplacesNodesOfConstantInputsByTheirResults() {
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addInitializer(floats("a", 1, 2)).addInitializer(floats("b", 10, 20));
        g.addNode(node("add", "Add", List.of("a", "b"), "s"));
        g.addNode(node("neg", "Neg", List.of("s"), "n"));
        g.addNode(node("mul", "Mul", List.of("x", "n"), "y"));
        List<ModelProto> evaluated = new ArrayList<>();
        ConstantFolding folding = new ConstantFolding(m -> {
            evaluated.add(m);
            return Map.of("n", Tensor.ofFloats(new float[] {-11, -22}, 2));
        }, msg -> { });
        ModelProto o = optimize(model(g), folding);
        assertEquals(List.of("mul:x,n->y"), ops(o));
        assertEquals(List.of("n"), initializers(o), "the inputs only the folded nodes read are gone");
        assertEquals(1, evaluated.size(), "one evaluation for the whole constant part");
        assertEquals(List.of("add", "neg"), evaluated.get(0).getGraph().getNodeList().stream()
                .map(NodeProto::getName).toList());
        assertEquals(List.of("n"), evaluated.get(0).getGraph().getOutputList().stream().map(ValueInfoProto::getName)
                .toList(), "only the values the rest of the graph reads come back");
    }

    @Test
    void aFailedEvaluationLeavesTheGraphAsItWas() {
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addInitializer(floats("a", 1));
        g.addNode(node("neg", "Neg", List.of("a"), "n"));
        g.addNode(node("mul", "Mul", List.of("x", "n"), "y"));
        List<String> log = new ArrayList<>();
        ModelProto o = optimize(model(g), new ConstantFolding(m -> {
            throw new IllegalStateException("no kernel");
        }, log::add));
        assertEquals(List.of("neg:a->n", "mul:x,n->y"), ops(o));
        assertEquals(List.of("constant folding skipped: no kernel"), log);
    }

    @Test
    void expandingAndGraphOutputNodesAreNotFolded() {
        GraphProto.Builder g = GraphProto.newBuilder().addOutput(value("y")).addOutput(value("z"))
                .addInitializer(TensorCodec.toProto(Tensor.ofLongs(new long[] {1000, 1000}, 2), "shape"))
                .addInitializer(floats("a", 1));
        g.addNode(node("big", "ConstantOfShape", List.of("shape"), "y"));
        g.addNode(node("neg", "Neg", List.of("a"), "z"));
        ConstantFolding folding = new ConstantFolding(m -> {
            throw new AssertionError("nothing to evaluate");
        }, msg -> { });
        assertEquals(2, ops(optimize(model(g), folding)).size());
    }

    @Test
    void disabledOptimizersAreLeftOutAndUnknownNamesRefused() {
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"));
        g.addNode(node("id", "Identity", List.of("x"), "a"));
        g.addNode(node("relu", "Relu", List.of("a"), "y"));
        assertEquals(List.of("relu:x->y"), ops(optimize(model(g), null)));
        assertEquals(List.of("id:x->a", "relu:a->y"), ops(optimize(model(g), null,
                GraphOptimizer.IDENTITY_ELIMINATION)));
        assertEquals(Set.of("ConstantFolding", "IdentityElimination"),
                GraphOptimizer.parseDisabled(" ConstantFolding,IdentityElimination ,"));
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> GraphOptimizer.parseDisabled("ConstantFolding,Bogus"));
        assertTrue(e.getMessage().contains("'Bogus'"), e.getMessage());
        ModelProto m = model(g);
        assertSame(m, GraphOptimizer.optimize(m, GraphOptimizationLevel.DISABLE_ALL, Set.of(), null));
    }

    @Test
    void aLongChainIsOptimizedInLinearTime() {
        int n = 200_000;
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"));
        String prev = "x";
        for (int i = 0; i < n; i++) {
            String out = i == n - 1 ? "y" : "v" + i;
            g.addNode(node("n" + i, i % 2 == 0 ? "Identity" : "Relu", List.of(prev), out));
            prev = out;
        }
        ModelProto m = model(g);
        ModelProto o = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> optimize(m, null));
        assertEquals(n / 2, o.getGraph().getNodeCount(), "every Identity went");
        assertEquals("x", o.getGraph().getNode(0).getInput(0));
        assertEquals("y", o.getGraph().getNode(n / 2 - 1).getOutput(0));
    }

    @Test
    void subgraphsAreOptimizedAndKeepTheNamesTheirParentsUse() {
        GraphProto.Builder branch = GraphProto.newBuilder().setName("then").addOutput(value("r"));
        branch.addNode(node("c", "Constant", List.of(), "k").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("value").setT(floats("ignored", 2))));
        branch.addNode(node("id", "Identity", List.of("x"), "xi"));
        branch.addNode(node("mul", "Mul", List.of("xi", "k"), "r"));
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addInput(value("cond"))
                .addOutput(value("y"));
        g.addNode(node("if", "If", List.of("cond"), "y").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("then_branch").setType(AttributeProto.AttributeType.GRAPH).setG(branch))
                .addAttribute(AttributeProto.newBuilder().setName("else_branch")
                        .setType(AttributeProto.AttributeType.GRAPH).setG(branch.setName("else"))));
        ModelProto o = optimize(model(g), null);
        GraphProto then = o.getGraph().getNode(0).getAttribute(0).getG();
        assertEquals(List.of("mul:x,k->r"), then.getNodeList().stream().map(n -> n.getName() + ":"
                + String.join(",", n.getInputList()) + "->" + String.join(",", n.getOutputList())).toList(),
                "the Constant became an initializer, the Identity went, the output kept its name");
        assertEquals(List.of("k"), then.getInitializerList().stream().map(TensorProto::getName).toList());
        assertEquals(List.of("if:cond->y"), ops(o), "the outer value x read inside the branch is not renamed");
    }

    @Test
    void aNestedSubgraphFoldsWhatItComputesFromTheConstantsOfEnclosingGraphs() {
        // outer branch: w = Constant; inner branch (an If inside it): r = x * Neg(w); Neg(w) reads only constants
        GraphProto.Builder inner = GraphProto.newBuilder().setName("inner").addOutput(value("r"));
        inner.addNode(node("neg", "Neg", List.of("w"), "nw"));
        inner.addNode(node("mul", "Mul", List.of("x", "nw"), "r"));
        GraphProto.Builder outer = GraphProto.newBuilder().setName("outer").addOutput(value("q"));
        outer.addNode(node("w", "Constant", List.of(), "w").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("value").setT(floats("ignored", 3, 4))));
        outer.addNode(node("inner_if", "If", List.of("cond"), "q").toBuilder().addAttribute(ifBranch("then_branch",
                inner)).addAttribute(ifBranch("else_branch", inner.clone().setName("inner_else"))));
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addInput(value("cond"))
                .addOutput(value("y"));
        g.addNode(node("outer_if", "If", List.of("cond"), "y").toBuilder().addAttribute(ifBranch("then_branch",
                outer)).addAttribute(ifBranch("else_branch", outer.clone().setName("outer_else"))));
        List<ModelProto> evaluated = new ArrayList<>();
        ConstantFolding folding = new ConstantFolding(m -> {
            evaluated.add(m);
            return Map.of("nw", Tensor.ofFloats(new float[] {-3, -4}, 2));
        }, msg -> { });
        ModelProto o = optimize(model(g), folding);
        GraphProto outerThen = o.getGraph().getNode(0).getAttribute(0).getG();
        GraphProto innerThen = outerThen.getNodeList().stream().filter(n -> n.getOpType().equals("If")).findFirst()
                .orElseThrow().getAttribute(0).getG();
        assertEquals(List.of("mul"), innerThen.getNodeList().stream().map(NodeProto::getName).toList(),
                "Neg of the enclosing branch's constant is folded inside the nested branch");
        assertEquals(List.of("nw"), innerThen.getInitializerList().stream().map(TensorProto::getName).toList());
        assertTrue(evaluated.stream().allMatch(m -> m.getGraph().getInitializerList().stream()
                .anyMatch(t -> t.getName().equals("w"))), "the evaluation was given the enclosing constant");
        assertEquals(List.of(), outerThen.getNodeList().stream().filter(n -> n.getOpType().equals("Constant"))
                .toList(), "the enclosing Constant became an initializer");
    }

    @Test
    void aNameTheSubgraphDefinesItselfHidesTheEnclosingConstant() {
        // the inner graph takes w as its own input: Neg(w) is not constant there
        GraphProto.Builder body = GraphProto.newBuilder().setName("body").addInput(value("w")).addOutput(value("r"));
        body.addNode(node("neg", "Neg", List.of("w"), "r"));
        GraphProto.Builder g = GraphProto.newBuilder().addInput(value("x")).addOutput(value("y"))
                .addInitializer(floats("w", 1, 2));
        g.addNode(node("scan", "Scan", List.of("x"), "y").toBuilder().addAttribute(AttributeProto.newBuilder()
                .setName("body").setType(AttributeProto.AttributeType.GRAPH).setG(body))
                .addAttribute(AttributeProto.newBuilder().setName("num_scan_inputs")
                        .setType(AttributeProto.AttributeType.INT).setI(1)));
        ConstantFolding folding = new ConstantFolding(m -> {
            throw new AssertionError("nothing to evaluate: " + m.getGraph().getNodeList());
        }, msg -> { });
        ModelProto o = optimize(model(g), folding);
        assertEquals(List.of("neg"), o.getGraph().getNode(0).getAttribute(0).getG().getNodeList().stream()
                .map(NodeProto::getName).toList());
    }

    private static AttributeProto ifBranch(String name, GraphProto.Builder graph) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.GRAPH).setG(graph)
                .build();
    }
}
