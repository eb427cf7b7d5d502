package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.FusedGroups.fusedGroups;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.testing.ModelBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CPU EP's convolution fusions through the real runtime: a Conv with the BatchNormalization, per-channel or
 * scalar Mul/Add/Sub/Div and activations exporters write after it (HardSwish written out included), and a written-out
 * HardSwish alone, each built as exporters write it, is claimed as one group and gives what the same model gives with
 * the fusions turned off ({@code CpuFusions} disabled), within float rounding, on one thread and on two; chains that
 * do not qualify stay single nodes.
 */
class CpuConvFusionsTest {
    private static final ElementType FLOAT = TestModels.FLOAT;
    private static Environment env;

    @BeforeAll
    static void open() {
        env = Environment.create();
    }

    @AfterAll
    static void close() {
        env.close();
    }

    private static float[] positive(int n, long seed) {
        float[] f = uniform(n, seed);
        for (int i = 0; i < n; i++) {
            f[i] = Math.abs(f[i]) + 0.1f;
        }
        return f;
    }

    private static AttributeProto ints(String name, long... v) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INTS);
        for (long x : v) {
            a.addInts(x);
        }
        return a.build();
    }

    private static AttributeProto intAttr(String name, long v) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INT).setI(v).build();
    }

    private static AttributeProto floatAttr(String name, float v) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.FLOAT).setF(v).build();
    }

    private static NodeProto.Builder node(String op, String name, List<String> in, String out) {
        return NodeProto.newBuilder().setOpType(op).setName(name).addAllInput(in).addOutput(out);
    }

    /** A Conv node: kernel k, stride s, padding k / 2 on every side, the given group. */
    private static NodeProto.Builder conv(String name, List<String> in, String out, int k, int s, int group) {
        return node("Conv", name, in, out).addAttribute(ints("kernel_shape", k, k)).addAttribute(ints("strides", s, s))
                .addAttribute(ints("pads", k / 2, k / 2, k / 2, k / 2)).addAttribute(intAttr("group", group));
    }

    /** Adds {@code Add(x, 3) -> Clip(0, 6) -> Mul(x, .) -> Div(6)} reading {@code x} and writing {@code y}. */
    private static ModelBuilder hardSwish(ModelBuilder m, String x, String y) {
        return m.node("Add", x + "_plus3", List.of(x, "three"), List.of(x + "_p3"))
                .node("Clip", x + "_clip", List.of(x + "_p3", "zero", "six"), List.of(x + "_c"))
                .node("Mul", x + "_times", List.of(x, x + "_c"), List.of(x + "_m"))
                .node("Div", x + "_div6", List.of(x + "_m", "six"), List.of(y));
    }

    private static ModelBuilder hardSwishConstants(ModelBuilder m) {
        return m.floats("three", new long[] {}, new float[] {3f}).floats("zero", new long[] {}, new float[] {0f})
                .floats("six", new long[] {}, new float[] {6f});
    }

    /** Runs a model with and without the fusions, on 1 and 2 threads; returns the fused run's assignment. */
    private static List<NodeAssignment> compare(ModelBuilder model, Map<String, Tensor> feeds) {
        List<NodeAssignment> assignment = null;
        for (int threads : new int[] {1, 2}) {
            Map<String, Tensor> fused;
            try (Session s = env.createSession(model.bytes(), new SessionOptions().intraOpThreads(threads))) {
                fused = s.run(feeds);
                assignment = s.assignment();
            }
            Map<String, Tensor> plain;
            try (Session s = env.createSession(model.bytes(), new SessionOptions().intraOpThreads(threads)
                    .config(SessionOptions.DISABLE_SPECIFIED_OPTIMIZERS, "CpuFusions"))) {
                plain = s.run(feeds);
                assertEquals(s.assignment().size(), s.assignment().stream().map(NodeAssignment::partition)
                        .distinct().count(), "without fusions every node is a partition of its own");
            }
            for (Map.Entry<String, Tensor> e : plain.entrySet()) {
                float[] want = e.getValue().floats();
                float[] got = fused.get(e.getKey()).floats();
                assertEquals(want.length, got.length);
                for (int i = 0; i < want.length; i++) {
                    assertEquals(want[i], got[i], 1e-4 * Math.max(1, Math.abs(want[i])), e.getKey() + "[" + i
                            + "] on " + threads + " threads");
                }
            }
        }
        return assignment;
    }

    private static Map<String, Tensor> image(String name, int c, int h, int w, long seed) {
        return Map.of(name, Tensor.ofFloats(uniform(c * h * w, seed), 1, c, h, w));
    }

    @Test
    void aPaddleOcrBlockIsTwoConvolutions() {
        // depthwise 3x3 -> scalar affine -> HardSwish written out -> scalar affine -> pointwise -> scalar affine
        ModelBuilder m = hardSwishConstants(TestModels.builder().input("x", FLOAT, 1, 8, 19, 21))
                .floats("wd", new long[] {8, 1, 3, 3}, uniform(8 * 9, 1)).floats("bd", new long[] {8}, uniform(8, 2))
                .floats("wp", new long[] {16, 8, 1, 1}, uniform(16 * 8, 3))
                .floats("bp", new long[] {16}, uniform(16, 4))
                .floats("s1", new long[] {1}, new float[] {0.94f}).floats("t1", new long[] {1}, new float[] {0.5f})
                .floats("s2", new long[] {1}, new float[] {0.47f}).floats("t2", new long[] {1}, new float[] {-0.01f})
                .floats("s3", new long[] {1}, new float[] {1.9f}).floats("t3", new long[] {1}, new float[] {0.8f})
                .node(conv("dw", List.of("x", "wd", "bd"), "d", 3, 1, 8))
                .node("Mul", "dw_scale", List.of("s1", "d"), List.of("d1"))
                .node("Add", "dw_shift", List.of("d1", "t1"), List.of("d2"));
        hardSwish(m, "d2", "h")
                .node("Mul", "hs_scale", List.of("s2", "h"), List.of("h1"))
                .node("Add", "hs_shift", List.of("h1", "t2"), List.of("h2"))
                .node(conv("pw", List.of("h2", "wp", "bp"), "p", 1, 1, 1))
                .node("Mul", "pw_scale", List.of("s3", "p"), List.of("p1"))
                .node("Add", "pw_shift", List.of("p1", "t3"), List.of("y"))
                .output("y", FLOAT, 1, 16, 19, 21);
        assertEquals(List.of("Conv+Mul+Add+Add+Clip+Mul+Div+Mul+Add", "Conv+Mul+Add"),
                fusedGroups(compare(m, image("x", 8, 19, 21, 5))));
    }

    @Test
    void batchNormalizationAndActivationsFoldIntoTheConvolution() {
        String[][] activations = {{"Relu"}, {"Sigmoid"}, {"Tanh"}, {"HardSwish"}, {"HardSigmoid"}, {"LeakyRelu"},
            {"Clip"}};
        for (String[] act : activations) {
            for (int k : new int[] {1, 3}) {
                ModelBuilder m = TestModels.builder().opset(14).input("x", FLOAT, 1, 6, 13, 11)
                        .floats("w", new long[] {10, 6, k, k}, uniform(10 * 6 * k * k, 1))
                        .floats("gamma", new long[] {10}, uniform(10, 2))
                        .floats("beta", new long[] {10}, uniform(10, 3))
                        .floats("mean", new long[] {10}, uniform(10, 4)).floats("var", new long[] {10}, positive(10, 5))
                        .floats("lo", new long[] {}, new float[] {-0.3f})
                        .floats("hi", new long[] {}, new float[] {0.4f})
                        .node(conv("conv", List.of("x", "w"), "c", k, 1, 1))
                        .node(node("BatchNormalization", "bn", List.of("c", "gamma", "beta", "mean", "var"), "b")
                                .addAttribute(floatAttr("epsilon", 1e-3f)));
                NodeProto.Builder a = node(act[0], "act", act[0].equals("Clip") ? List.of("b", "lo", "hi")
                        : List.of("b"), "y");
                if (act[0].equals("LeakyRelu")) {
                    a.addAttribute(floatAttr("alpha", 0.2f));
                }
                m.node(a).output("y", FLOAT, 1, 10, 13, 11);
                assertEquals(List.of("Conv+BatchNormalization+" + act[0]),
                        fusedGroups(compare(m, image("x", 6, 13, 11, 6))), act[0] + " after a " + k + "x" + k);
            }
        }
    }

    @Test
    void perChannelArithmeticBeforeAndAfterTheActivation() {
        // strided 3x3 with padding: the maps act on the output, so folding them is exact at the borders too
        ModelBuilder m = TestModels.builder().input("x", FLOAT, 2, 4, 17, 16)
                .floats("w", new long[] {6, 4, 3, 3}, uniform(6 * 4 * 9, 1)).floats("b", new long[] {6}, uniform(6, 2))
                .floats("scale", new long[] {6, 1, 1}, uniform(6, 3))
                .floats("shift", new long[] {1, 6, 1, 1}, uniform(6, 4))
                .floats("two", new long[] {}, new float[] {2f}).floats("sub", new long[] {6, 1, 1}, uniform(6, 5))
                .floats("floor", new long[] {1, 1, 1, 1}, new float[] {-0.4f})
                .node(conv("conv", List.of("x", "w", "b"), "c", 3, 2, 1))
                .node("Mul", "scale", List.of("c", "scale"), List.of("c1"))
                .node("Add", "shift", List.of("shift", "c1"), List.of("c2"))
                .node("Div", "half", List.of("c2", "two"), List.of("c3"))
                .node(node("LeakyRelu", "leaky", List.of("c3"), "c4").addAttribute(floatAttr("alpha", 0.2f)))
                .node("Max", "floor", List.of("c4", "floor"), List.of("c5"))
                .node("Sub", "minus", List.of("sub", "c5"), List.of("y"))
                .output("y", FLOAT, 2, 6, 9, 8);
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(uniform(2 * 4 * 17 * 16, 6), 2, 4, 17, 16));
        assertEquals(List.of("Conv+Mul+Add+Div+LeakyRelu+Max+Sub"), fusedGroups(compare(m, feeds)));
    }

    @Test
    void aDetectionHeadIsTwoTransposedConvolutions() {
        // ConvTranspose 2x2/2 -> bias Add -> BatchNormalization -> Relu -> ConvTranspose 2x2/2 -> Add -> Sigmoid
        ModelBuilder m = TestModels.builder().input("x", FLOAT, 1, 6, 9, 7)
                .floats("w1", new long[] {6, 6, 2, 2}, uniform(6 * 6 * 4, 1))
                .floats("b1", new long[] {1, 6, 1, 1}, uniform(6, 2))
                .floats("gamma", new long[] {6}, uniform(6, 3)).floats("beta", new long[] {6}, uniform(6, 4))
                .floats("mean", new long[] {6}, uniform(6, 5)).floats("var", new long[] {6}, positive(6, 6))
                .floats("w2", new long[] {6, 1, 2, 2}, uniform(6 * 4, 7))
                .floats("b2", new long[] {1, 1, 1, 1}, new float[] {-0.1f})
                .node(node("ConvTranspose", "up1", List.of("x", "w1"), "u").addAttribute(ints("kernel_shape", 2, 2))
                        .addAttribute(ints("strides", 2, 2)))
                .node("Add", "bias1", List.of("u", "b1"), List.of("u1"))
                .node("BatchNormalization", "bn", List.of("u1", "gamma", "beta", "mean", "var"), List.of("u2"))
                .node("Relu", "relu", List.of("u2"), List.of("u3"))
                .node(node("ConvTranspose", "up2", List.of("u3", "w2"), "v").addAttribute(ints("kernel_shape", 2, 2))
                        .addAttribute(ints("strides", 2, 2)))
                .node("Add", "bias2", List.of("v", "b2"), List.of("v1"))
                .node("Sigmoid", "sigmoid", List.of("v1"), List.of("y"))
                .output("y", FLOAT, 1, 1, 36, 28);
        assertEquals(List.of("ConvTranspose+Add+BatchNormalization+Relu", "ConvTranspose+Add+Sigmoid"),
                fusedGroups(compare(m, image("x", 6, 9, 7, 8))));
        // overlapping taps: 3x3 stride 2 with padding
        ModelBuilder overlap = TestModels.builder().input("x", FLOAT, 1, 4, 5, 6)
                .floats("w", new long[] {4, 3, 3, 3}, uniform(4 * 3 * 9, 1)).floats("b", new long[] {3}, uniform(3, 2))
                .node(node("ConvTranspose", "up", List.of("x", "w", "b"), "u").addAttribute(ints("strides", 2, 2))
                        .addAttribute(ints("pads", 1, 1, 1, 1)))
                .node("Relu", "relu", List.of("u"), List.of("y"))
                .output("y", FLOAT, 1, 3, 9, 11);
        assertEquals(List.of("ConvTranspose+Relu"), fusedGroups(compare(overlap, image("x", 4, 5, 6, 9))));
    }

    @Test
    void aWrittenOutHardSwishAloneIsOneKernel() {
        ModelBuilder m = hardSwishConstants(TestModels.builder().input("x", FLOAT, 3, 1000))
                .node("Abs", "abs", List.of("x"), List.of("a"));
        hardSwish(m, "x", "y").node("Add", "sum", List.of("y", "a"), List.of("z")).output("z", FLOAT, 3, 1000);
        float[] x = uniform(3000, 7);
        for (int i = 0; i < x.length; i++) {
            x[i] *= 5;
        }
        assertEquals(List.of("Add+Clip+Mul+Div"), fusedGroups(compare(m, Map.of("x", Tensor.ofFloats(x, 3, 1000)))));
    }

    @Test
    void chainsThatDoNotQualifyStaySingleNodes() {
        // the convolution's output is also a graph output
        ModelBuilder exposed = TestModels.builder().input("x", FLOAT, 1, 2, 6, 6)
                .floats("w", new long[] {3, 2, 3, 3}, uniform(3 * 2 * 9, 1))
                .node(conv("conv", List.of("x", "w"), "c", 3, 1, 1))
                .node("Relu", "relu", List.of("c"), List.of("y"))
                .output("y", FLOAT, 1, 3, 6, 6).output("c", FLOAT, 1, 3, 6, 6);
        assertTrue(fusedGroups(compare(exposed, image("x", 2, 6, 6, 2))).isEmpty());
        // a constant that varies along the width is no channel-wise map; a constant divided by the output is none
        ModelBuilder widthwise = TestModels.builder().input("x", FLOAT, 1, 2, 6, 6)
                .floats("w", new long[] {3, 2, 3, 3}, uniform(3 * 2 * 9, 1)).floats("v", new long[] {6}, uniform(6, 3))
                .node(conv("conv", List.of("x", "w"), "c", 3, 1, 1))
                .node("Mul", "mul", List.of("c", "v"), List.of("y"))
                .output("y", FLOAT, 1, 3, 6, 6);
        assertTrue(fusedGroups(compare(widthwise, image("x", 2, 6, 6, 2))).isEmpty());
        ModelBuilder reciprocal = TestModels.builder().input("x", FLOAT, 1, 2, 6, 6)
                .floats("w", new long[] {3, 2, 3, 3}, uniform(3 * 2 * 9, 1))
                .floats("one", new long[] {}, new float[] {1f})
                .node(conv("conv", List.of("x", "w"), "c", 3, 1, 1))
                .node("Div", "div", List.of("one", "c"), List.of("y"))
                .output("y", FLOAT, 1, 3, 6, 6);
        assertTrue(fusedGroups(compare(reciprocal, image("x", 2, 6, 6, 2))).isEmpty());
        // weights fed at run time
        ModelBuilder fedWeights = TestModels.builder().input("x", FLOAT, 1, 2, 6, 6)
                .input("w", FLOAT, 3, 2, 3, 3)
                .node(conv("conv", List.of("x", "w"), "c", 3, 1, 1))
                .node("Relu", "relu", List.of("c"), List.of("y"))
                .output("y", FLOAT, 1, 3, 6, 6);
        Map<String, Tensor> feeds = new HashMap<>(image("x", 2, 6, 6, 2));
        feeds.put("w", Tensor.ofFloats(uniform(54, 3), 3, 2, 3, 3));
        assertTrue(fusedGroups(compare(fedWeights, feeds)).isEmpty());
    }
}
