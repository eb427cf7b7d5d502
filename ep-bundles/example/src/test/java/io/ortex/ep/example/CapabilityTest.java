package io.ortex.ep.example;

import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.onnx.OnnxModel;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What {@code getCapability} claims and how it groups nodes. */
class CapabilityTest {
    private final ExampleExecutionProvider ep = new ExampleExecutionProvider(true);
    private final Random random = new Random(7);

    private RecordingSupport claim(OnnxModel model) {
        RecordingSupport support = new RecordingSupport();
        ep.getCapability(model.graph(), support);
        assertTrue(support.singles.isEmpty(), "the example EP only fuses");
        Partitions.assertFusible(model.graph(), support.groups);
        return support;
    }

    @Test
    void mlpIsOneGroupWithoutTheSoftmax() {
        OnnxModel model = new ModelBuilder()
                .input("x", 2, 4)
                .initializer("w1", Tensors.random(random, 4, 8)).initializer("b1", Tensors.random(random, 8))
                .initializer("w2", Tensors.random(random, 8, 3)).initializer("b2", Tensors.random(random, 3))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h1"))
                .node("Add", "add1", List.of("h1", "b1"), List.of("h2"))
                .node("Relu", "relu", List.of("h2"), List.of("h3"))
                .node("MatMul", "mm2", List.of("h3", "w2"), List.of("h4"))
                .node("Add", "add2", List.of("h4", "b2"), List.of("logits"))
                .node("Softmax", "softmax", List.of("logits"), List.of("y"))
                .output("y").build();
        RecordingSupport support = claim(model);
        assertEquals(List.of(List.of("mm1", "add1", "relu", "mm2", "add2")), support.groupNames());
        assertEquals(List.of(new FusionOptions(true)), support.options);
    }

    @Test
    void unsupportedNodeBetweenSupportedOnesSplitsTheGroup() {
        // a = x*W; s = Softmax(a); y = a + s: {MatMul, Add} would have Softmax on a path inside it
        OnnxModel model = new ModelBuilder()
                .input("x", 2, 4).initializer("w", Tensors.random(random, 4, 4))
                .node("MatMul", "mm", List.of("x", "w"), List.of("a"))
                .node("Softmax", "softmax", List.of("a"), List.of("s")).valueInfo("s", ElementType.FLOAT)
                .node("Add", "add", List.of("a", "s"), List.of("y"))
                .output("y").build();
        assertEquals(List.of(List.of("mm"), List.of("add")), claim(model).groupNames());
    }

    @Test
    void supportedNodesBesideAnUnsupportedOneStillJoin() {
        // r = Relu(x*W) feeds both Tanh (unsupported) and a Mul; the Mul joins the group, the Add after Tanh cannot
        OnnxModel model = new ModelBuilder()
                .input("x", 2, 4).initializer("w", Tensors.random(random, 4, 4))
                .node("MatMul", "mm", List.of("x", "w"), List.of("a"))
                .node("Relu", "relu", List.of("a"), List.of("r"))
                .node("Tanh", "tanh", List.of("r"), List.of("t")).valueInfo("t", ElementType.FLOAT)
                .node("Mul", "mul", List.of("r", "r"), List.of("m"))
                .node("Add", "add", List.of("m", "t"), List.of("y"))
                .output("y").build();
        assertEquals(List.of(List.of("mm", "relu", "mul"), List.of("add")), claim(model).groupNames());
    }

    @Test
    void branchesMergeIntoOneGroup() {
        OnnxModel model = new ModelBuilder()
                .input("x", 2, 4).input("z", 2, 4)
                .node("Relu", "left", List.of("x"), List.of("l"))
                .node("Relu", "right", List.of("z"), List.of("r"))
                .node("Add", "join", List.of("l", "r"), List.of("y"))
                .output("y").build();
        assertEquals(List.of(List.of("left", "right", "join")), claim(model).groupNames());
    }

    @Test
    void groupsAreNotMergedAcrossAnOutsidePath() {
        // g1 = Relu(x) feeds Tanh, whose output feeds g2 = Relu(t); join = g1 + g2 may join one of them only
        OnnxModel model = new ModelBuilder()
                .input("x", 2, 4)
                .node("Relu", "g1", List.of("x"), List.of("a"))
                .node("Tanh", "tanh", List.of("a"), List.of("t")).valueInfo("t", ElementType.FLOAT)
                .node("Relu", "g2", List.of("t"), List.of("b"))
                .node("Add", "join", List.of("a", "b"), List.of("y"))
                .output("y").build();
        assertEquals(List.of(List.of("g1"), List.of("g2", "join")), claim(model).groupNames());
    }

    @Test
    void unsupportedTypesAreNotClaimed() {
        OnnxModel model = new ModelBuilder()
                .input("i", ElementType.INT64, 2).input("d", ElementType.DOUBLE, 2).input("f", 2)
                .input("h", ElementType.FLOAT16, 2)
                .node("Add", "addInt", List.of("i", "i"), List.of("i2"))
                .node("Mul", "mulDouble", List.of("d", "d"), List.of("d2"))
                .node("Relu", "reluHalf", List.of("h"), List.of("h2"))
                .node("Add", "addFloat", List.of("f", "f"), List.of("f2"))
                .output("i2").output("d2").output("h2").output("f2").build();
        assertEquals(List.of(List.of("addFloat")), claim(model).groupNames());
    }

    @Test
    void declaredNonFloatOutputIsNotClaimed() {
        OnnxModel model = new ModelBuilder()
                .input("f", 2)
                .node("Add", "add", List.of("f", "f"), List.of("y"))
                .output("y", ElementType.DOUBLE).build();
        assertEquals(List.of(), claim(model).groupNames());
    }

    @Test
    void untypedValuesNeedASupportedProducer() {
        // u is an untyped graph input: refused; v has no declared type but comes from a supported Relu: accepted
        OnnxModel model = new ModelBuilder()
                .untypedInput("u").input("x", 2)
                .node("Relu", "fromUntyped", List.of("u"), List.of("a"))
                .node("Relu", "relu", List.of("x"), List.of("v"))
                .node("Mul", "fromRelu", List.of("v", "v"), List.of("b"))
                .node("Softmax", "softmax", List.of("x"), List.of("s"))
                .node("Add", "fromSoftmax", List.of("s", "s"), List.of("c"))
                .output("a").output("b").output("c").build();
        assertEquals(List.of(List.of("relu", "fromRelu")), claim(model).groupNames());
    }

    @Test
    void unimplementedAttributesAreNotClaimed() {
        Tensor w = Tensors.random(random, 4, 2, 3, 3);
        Tensor w3d = Tensors.random(random, 4, 2, 3, 3, 3);
        OnnxModel model = new ModelBuilder()
                .input("x", 1, 2, 8, 8).input("v", 1, 2, 4, 8, 8).input("a", 4, 4).input("b", 4, 4)
                .initializer("w", w).initializer("w3d", w3d)
                .node("Conv", "sameUpper", List.of("x", "w"), List.of("c1"), attr("auto_pad", "SAME_UPPER"))
                .node("Conv", "conv3d", List.of("v", "w3d"), List.of("c2"))
                .node("Conv", "badPads", List.of("x", "w"), List.of("c3"), ints("pads", 1, 1))
                .node("Conv", "badKernel", List.of("x", "w"), List.of("c4"), ints("kernel_shape", 5, 5))
                .node("Conv", "rankMismatch", List.of("v", "w"), List.of("c6"))
                .node("Gemm", "transTwo", List.of("a", "b"), List.of("g1"), attr("transA", 2L))
                .node("Gemm", "unknownAttr", List.of("a", "b"), List.of("g2"), attr("broadcast", 1L))
                .node("Gemm", "okGemm", List.of("a", "b"), List.of("g3"), attr("transA", 1L), attr("alpha", 0.5f))
                .node("Conv", "okConv", List.of("x", "w"), List.of("c5"), ints("strides", 2, 2),
                        ints("pads", 1, 1, 1, 1), ints("dilations", 1, 1), attr("group", 1L),
                        ints("kernel_shape", 3, 3))
                .node("com.example", "Relu", "otherDomain", List.of("a"), List.of("r"))
                .output("c1").output("c2").output("c3").output("c4").output("g1").output("g2").output("g3")
                .output("c5").output("c6").output("r").build();
        assertEquals(List.of(List.of("okGemm"), List.of("okConv")), claim(model).groupNames());
    }

    @Test
    void rejectionsNameTheCause() {
        OnnxModel model = new ModelBuilder()
                .input("x", ElementType.INT32, 2)
                .node("Add", "addInt", List.of("x", "x"), List.of("y"))
                .output("y").build();
        NodeView node = model.graph().nodes().get(0);
        String reason = NodeSupport.rejection(node, Set.of()).orElseThrow();
        assertTrue(reason.contains("'x'") && reason.contains("int32"), reason);
    }

    @Test
    void randomGraphsAlwaysGiveFusibleGroupsAndRightResults() {
        String[] supported = {"Add", "Mul", "Relu"};
        String[] unsupported = {"Sub", "Tanh", "Sigmoid"};
        int splitGraphs = 0;
        int largeGroups = 0;
        for (int trial = 0; trial < 150; trial++) {
            Random r = new Random(trial);
            ModelBuilder b = new ModelBuilder().input("x", 2, 3).input("z", 2, 3);
            List<String> values = new ArrayList<>(List.of("x", "z"));
            Set<String> consumed = new HashSet<>();
            int count = 3 + r.nextInt(20);
            for (int i = 0; i < count; i++) {
                boolean isSupported = r.nextInt(3) > 0;
                String op = (isSupported ? supported : unsupported)[r.nextInt(3)];
                boolean unary = op.equals("Relu") || op.equals("Tanh") || op.equals("Sigmoid");
                String in1 = values.get(r.nextInt(values.size()));
                String in2 = values.get(r.nextInt(values.size()));
                String out = "v" + i;
                b.node(op, "n" + i, unary ? List.of(in1) : List.of(in1, in2), List.of(out));
                if (r.nextBoolean()) {
                    b.valueInfo(out, ElementType.FLOAT);
                }
                consumed.add(in1);
                if (!unary) {
                    consumed.add(in2);
                }
                values.add(out);
            }
            for (String v : values.subList(2, values.size())) {
                if (!consumed.contains(v) || r.nextInt(4) == 0) {
                    b.output(v);
                }
            }
            OnnxModel model = b.build();
            RecordingSupport first = claim(model);
            assertEquals(first.groupNames(), claim(model).groupNames(), "deterministic");
            splitGraphs += first.groups.size() > 1 ? 1 : 0;
            largeGroups += (int) first.groups.stream().filter(g -> g.size() > 2).count();
            Map<String, Tensor> feeds = new LinkedHashMap<>();
            feeds.put("x", Tensors.random(r, 2, 3));
            feeds.put("z", Tensors.random(r, 2, 3));
            ExampleRuns.Result result = ExampleRuns.runWithExample(model, feeds, true, 1);
            assertEquals(first.groups.size(), result.groups().size(), "the runtime compiles the groups claimed");
            ExampleRuns.assertClose(ExampleRuns.runOnCpu(model, feeds), result.outputs());
        }
        assertTrue(splitGraphs > 30 && largeGroups > 30, "the random graphs exercise splitting and merging: "
                + splitGraphs + " split graphs, " + largeGroups + " groups of 3 or more");
    }
}
