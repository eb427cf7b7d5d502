package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.NodeAssignment;
import io.ortex.api.NotImplementedException;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.LayoutConversion;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import io.ortex.testing.Attributes;
import io.ortex.testing.ModelBuilder;
import io.ortex.testing.RandomFloats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The layout conversion for EPs that prefer NHWC ({@link SessionLayout}): a test EP that prefers NHWC gets the Conv
 * nodes it claimed back in the NHWC domain between transposes, a Conv-Relu-Conv chain keeps its data channels last in
 * between, the EP's {@code shouldConvertDataLayout} answer is followed either way, an EP that prefers NCHW leaves the
 * graph alone, and every session computes what the CPU EP computes on the unconverted graph.
 */
class LayoutConversionTest {
    private static final String NHWC_CONV = DataLayout.NHWC_DOMAIN + "::Conv";
    private static final Tensor X = RandomFloats.uniform(new Random(7), 1, 3, 7, 6);

    /** {@code y = Conv(x)}: 3 to 4 channels, 3x3, padded, with a bias. */
    private static ModelBuilder conv() {
        return weights(TestModels.builder().input("x", TestModels.FLOAT, 1, 3, 7, 6))
                .node("Conv", "conv1", List.of("x", "w1", "b1"), List.of("y"), Attributes.ints("pads", 1, 1, 1, 1))
                .output("y");
    }

    /** {@code y = Conv(Relu(Conv(x)))}, the second Conv strided and without bias. */
    private static ModelBuilder convReluConv() {
        return weights(TestModels.builder().input("x", TestModels.FLOAT, 1, 3, 7, 6))
                .node("Conv", "conv1", List.of("x", "w1", "b1"), List.of("c1"), Attributes.ints("pads", 1, 1, 1, 1))
                .node("Relu", "relu", List.of("c1"), List.of("r"))
                .node("Conv", "conv2", List.of("r", "w2"), List.of("y"), Attributes.ints("strides", 2, 2),
                        Attributes.ints("pads", 0, 1, 1, 0))
                .output("y");
    }

    /**
     * {@code y = If(cond, then: Relu(Conv(x)), else: Conv(Relu(Conv(x))))}: the Convs live in the branches and read
     * {@code x} and the weights from the main graph.
     */
    private static ModelBuilder convsInBranches() {
        GraphProto thenBranch = GraphProto.newBuilder().setName("then")
                .addNode(NodeProto.newBuilder().setOpType("Conv").setName("then_conv").addAllInput(List.of("x", "w1",
                        "b1")).addOutput("t1").addAttribute(Attributes.ints("pads", 1, 1, 1, 1)))
                .addNode(NodeProto.newBuilder().setOpType("Relu").setName("then_relu").addInput("t1").addOutput("t2"))
                .addOutput(floatValue("t2")).build();
        GraphProto elseBranch = GraphProto.newBuilder().setName("else")
                .addNode(NodeProto.newBuilder().setOpType("Conv").setName("else_conv1").addAllInput(List.of("x", "w1",
                        "b1")).addOutput("e1").addAttribute(Attributes.ints("pads", 1, 1, 1, 1)))
                .addNode(NodeProto.newBuilder().setOpType("Relu").setName("else_relu").addInput("e1").addOutput("e2"))
                .addNode(NodeProto.newBuilder().setOpType("Conv").setName("else_conv2").addAllInput(List.of("e2",
                        "w3")).addOutput("e3").addAttribute(Attributes.ints("pads", 1, 1, 1, 1)))
                .addOutput(floatValue("e3")).build();
        return weights(TestModels.builder().input("cond", ElementType.BOOL, 1).input("x", TestModels.FLOAT, 1, 3, 7, 6))
                .initializer("w3", RandomFloats.uniform(new Random(13), 4, 4, 3, 3))
                .node("If", "branch", List.of("cond"), List.of("y"), Attributes.attr("then_branch", thenBranch),
                        Attributes.attr("else_branch", elseBranch))
                .output("y");
    }

    private static ValueInfoProto floatValue(String name) {
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder().setTensorType(
                TypeProto.Tensor.newBuilder().setElemType(TensorProto.DataType.FLOAT_VALUE))).build();
    }

    private static ModelBuilder weights(ModelBuilder b) {
        Random random = new Random(11);
        return b.initializer("w1", RandomFloats.uniform(random, 4, 3, 3, 3))
                .initializer("b1", RandomFloats.uniform(random, 4))
                .initializer("w2", RandomFloats.uniform(random, 2, 4, 2, 3));
    }

    private static InferenceSession session(ModelBuilder model, NhwcTestEp ep) {
        List<EpBinding> bindings = new ArrayList<>();
        if (ep != null) {
            bindings.add(new EpBinding(new CountingEpFactory(ep.name(), () -> ep), List.of(SupportedDevice.of(CPU))));
        }
        bindings.add(new EpBinding(new CountingEpFactory(new CpuEpFactory()), List.of(SupportedDevice.of(CPU))));
        return InferenceSession.create(ModelReader.read(model.bytes(), null),
                new SessionOptions().graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL), bindings, s -> { });
    }

    private static NhwcTestEp ep(DataLayout layout, LayoutConversion answer) {
        return new NhwcTestEp(layout, (domain, op) -> answer, Set.of("", DataLayout.NHWC_DOMAIN));
    }

    private static float[] run(InferenceSession s) {
        return s.run(Map.of("x", X)).get("y").floats();
    }

    /** Runs the model on the CPU EP alone, as ONNX describes it. */
    private static float[] expected(ModelBuilder model) {
        try (InferenceSession s = session(model, null)) {
            return run(s);
        }
    }

    private static void assertClose(float[] expected, float[] actual) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-4f, "element " + i);
        }
    }

    private static List<NodeAssignment> ops(InferenceSession s, String op) {
        return s.assignment().stream().filter(a -> a.opType().equals(op)).toList();
    }

    @Test
    void anNhwcEpGetsItsConvInTheNhwcDomainBetweenTransposesAndIsAskedAgain() {
        NhwcTestEp ep = ep(DataLayout.NHWC, LayoutConversion.RUNTIME_DECIDES);
        try (InferenceSession s = session(conv(), ep)) {
            assertEquals(List.of(NHWC_CONV), ops(s, NHWC_CONV).stream().map(NodeAssignment::opType).toList());
            assertEquals("NhwcTestEP", ops(s, NHWC_CONV).get(0).ep());
            assertEquals(0, ops(s, "Conv").size(), "no Conv is left in the ONNX domain");
            assertEquals(2, ops(s, "Transpose").size(), "one to channels last before, one back after");
            assertEquals(List.of(List.of("Conv"), List.of("Transpose", NHWC_CONV, "Transpose")), ep.offered,
                    "GetCapability is asked again on the converted graph");
            assertClose(expected(conv()), run(s));
        }
    }

    @Test
    void theConvsOfIfBranchesAreConvertedInTheirBranchesAndGiveTheSameResults() {
        NhwcTestEp ep = ep(DataLayout.NHWC, LayoutConversion.RUNTIME_DECIDES);
        try (InferenceSession s = session(convsInBranches(), ep);
                InferenceSession cpu = session(convsInBranches(), null)) {
            List<String> converted = ops(s, NHWC_CONV).stream().map(NodeAssignment::node).sorted().toList();
            assertEquals(List.of("branch/else_branch/else_conv1", "branch/else_branch/else_conv2",
                    "branch/then_branch/then_conv"), converted, s.assignment().toString());
            assertEquals(0, ops(s, "Conv").size(), "no Conv is left in the ONNX domain");
            assertTrue(ops(s, NHWC_CONV).stream().allMatch(a -> a.ep().equals("NhwcTestEP")));
            assertEquals(4, ops(s, "Transpose").size(),
                    "each branch keeps one transpose at each end: the else branch's two Convs stay channels last");
            for (boolean cond : new boolean[] {true, false}) {
                Map<String, Tensor> feeds = Map.of("cond", Tensor.ofBooleans(new boolean[] {cond}, 1), "x", X);
                assertClose(cpu.run(feeds).get("y").floats(), s.run(feeds).get("y").floats());
            }
        }
    }

    @Test
    void aConvReluConvChainKeepsItsDataChannelsLastBetweenTheConvs() {
        NhwcTestEp ep = ep(DataLayout.NHWC, LayoutConversion.RUNTIME_DECIDES);
        try (InferenceSession s = session(convReluConv(), ep)) {
            assertEquals(2, ops(s, NHWC_CONV).size());
            assertEquals(1, ops(s, "Relu").size(), "Relu is not layout-sensitive: it stays in the ONNX domain");
            assertEquals(2, ops(s, "Transpose").size(), "the transposes between the Convs cancel out");
            assertTrue(ops(s, "Transpose").stream().allMatch(a -> a.ep().equals("CPUExecutionProvider")));
            assertClose(expected(convReluConv()), run(s));
        }
    }

    @Test
    void aConvertedSessionRunsFromManyThreadsAtOnce() throws Exception {
        float[] expected = expected(convReluConv());
        NhwcTestEp ep = ep(DataLayout.NHWC, LayoutConversion.RUNTIME_DECIDES);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try (InferenceSession s = session(convReluConv(), ep)) {
            List<java.util.concurrent.Future<float[]>> runs = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                runs.add(pool.submit(() -> run(s)));
            }
            for (java.util.concurrent.Future<float[]> r : runs) {
                assertClose(expected, r.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anEpThatSaysConvertGetsAnOpTheRuntimeWouldNotConvert() {
        NhwcTestEp ep = ep(DataLayout.NHWC, LayoutConversion.CONVERT);
        try (InferenceSession s = session(convReluConv(), ep)) {
            assertEquals(1, ops(s, DataLayout.NHWC_DOMAIN + "::Relu").size());
            assertEquals(2, ops(s, NHWC_CONV).size());
            assertEquals(2, ops(s, "Transpose").size());
            assertClose(expected(convReluConv()), run(s));
        }
    }

    @Test
    void anEpThatSaysKeepKeepsItsConvInNchw() {
        NhwcTestEp ep = new NhwcTestEp(DataLayout.NHWC,
                (domain, op) -> op.equals("Conv") ? LayoutConversion.KEEP : LayoutConversion.RUNTIME_DECIDES,
                Set.of("", DataLayout.NHWC_DOMAIN));
        try (InferenceSession s = session(convReluConv(), ep)) {
            assertEquals(2, ops(s, "Conv").size());
            assertEquals(0, ops(s, NHWC_CONV).size());
            assertEquals(0, ops(s, "Transpose").size());
            assertClose(expected(convReluConv()), run(s));
        }
    }

    @Test
    void anNchwEpIsUntouchedAndAskedOnce() {
        NhwcTestEp ep = ep(DataLayout.NCHW, LayoutConversion.CONVERT);
        try (InferenceSession s = session(convReluConv(), ep)) {
            assertEquals(2, ops(s, "Conv").size());
            assertEquals(0, ops(s, "Transpose").size());
            assertEquals(1, ep.offered.size(), "no trial GetCapability without an NHWC EP");
            assertClose(expected(convReluConv()), run(s));
        }
    }

    @Test
    void anEpThatDoesNotClaimTheConvertedNodeAgainFailsTheSessionNamingIt() {
        NhwcTestEp ep = new NhwcTestEp(DataLayout.NHWC, (domain, op) -> LayoutConversion.RUNTIME_DECIDES, Set.of(""));
        NotImplementedException e = assertThrows(NotImplementedException.class, () -> session(conv(), ep).close());
        assertTrue(e.getMessage().contains("'conv1'") && e.getMessage().contains(NHWC_CONV)
                && e.getMessage().contains("claim it again"), e.getMessage());
    }
}
