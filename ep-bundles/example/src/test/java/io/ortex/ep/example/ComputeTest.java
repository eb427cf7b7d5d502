package io.ortex.ep.example;

import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.Tensor;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Compiled groups compute what the CPU EP computes, op by op and for whole MLPs. */
class ComputeTest {
    private final Random random = new Random(11);

    /**
     * Runs the model through the runtime with the example EP (all of it in {@code groups} groups) and on the CPU EP
     * alone; compares.
     */
    private ExampleRuns.Result check(OnnxModel model, Map<String, Tensor> feeds, int groups, boolean fuse,
                                     int threads) {
        return check(model, feeds, groups, fuse, threads, 1e-5);
    }

    private ExampleRuns.Result check(OnnxModel model, Map<String, Tensor> feeds, int groups, boolean fuse,
                                     int threads, double atol) {
        ExampleRuns.Result result = ExampleRuns.runWithExample(model, feeds, fuse, threads);
        assertEquals(groups, result.groups().size(), "groups");
        assertEquals(model.graph().nodes().size(), result.groups().stream().mapToInt(List::size).sum(),
                "every node is claimed");
        ExampleRuns.assertClose(ExampleRuns.runOnCpu(model, feeds), result.outputs(), atol);
        return result;
    }

    private ExampleRuns.Result check(OnnxModel model, Map<String, Tensor> feeds) {
        return check(model, feeds, 1, true, 1);
    }

    private static Map<String, Tensor> feeds(Object... nameThenTensor) {
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        for (int i = 0; i < nameThenTensor.length; i += 2) {
            feeds.put((String) nameThenTensor[i], (Tensor) nameThenTensor[i + 1]);
        }
        return feeds;
    }

    private OnnxModel mlp(int in, int hidden, int out) {
        return new ModelBuilder()
                .input("x", -1, in)
                .initializer("w1", Tensors.random(random, in, hidden))
                .initializer("b1", Tensors.random(random, hidden))
                .initializer("w2", Tensors.random(random, hidden, out))
                .initializer("b2", Tensors.random(random, out))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h1"))
                .node("Add", "add1", List.of("h1", "b1"), List.of("h2"))
                .node("Relu", "relu", List.of("h2"), List.of("h3"))
                .node("MatMul", "mm2", List.of("h3", "w2"), List.of("h4"))
                .node("Add", "add2", List.of("h4", "b2"), List.of("y"))
                .output("y").build();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void mlpMatchesTheCpuEp(boolean fuse) {
        OnnxModel model = mlp(16, 32, 5);
        check(model, feeds("x", Tensors.random(random, 3, 16)), 1, fuse, 1);
        check(model, feeds("x", Tensors.random(random, 1, 16)), 1, fuse, 1);
    }

    @Test
    void largeMlpMatchesOnParallelThreads() {
        OnnxModel model = mlp(256, 512, 64);
        // the second layer sums 512 products of hidden values up to ~10: rounding reaches a few 1e-5 absolute
        check(model, feeds("x", Tensors.random(random, 64, 256)), 1, true, 4, 2e-4);
    }

    @Test
    void mlpWithSoftmaxRunsSoftmaxOnTheCpuEp() {
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
        Map<String, Tensor> feeds = feeds("x", Tensors.random(random, 2, 4));
        ExampleRuns.Result result = ExampleRuns.runWithExample(model, feeds, true, 1);
        assertEquals(1, result.groups().size());
        ExampleRuns.assertClose(ExampleRuns.runOnCpu(model, feeds), result.outputs());
    }

    @ParameterizedTest
    @ValueSource(strings = {"00", "01", "10", "11"})
    void gemmTranspositionsWithConstantAndRuntimeB(String flags) {
        long transA = flags.charAt(0) - '0';
        long transB = flags.charAt(1) - '0';
        int m = 5;
        int k = 7;
        int n = 6;
        Tensor a = Tensors.random(random, transA == 1 ? new long[] {k, m} : new long[] {m, k});
        Tensor b = Tensors.random(random, transB == 1 ? new long[] {n, k} : new long[] {k, n});
        Onnx.AttributeProto[] attrs = {attr("transA", transA), attr("transB", transB), attr("alpha", 0.75f),
            attr("beta", -1.5f)};
        OnnxModel constantB = new ModelBuilder().input("a", a.shape()).initializer("b", b)
                .initializer("c", Tensors.random(random, n))
                .node("Gemm", "gemm", List.of("a", "b", "c"), List.of("y"), attrs).output("y").build();
        check(constantB, feeds("a", a));
        OnnxModel runtimeB = new ModelBuilder().input("a", a.shape()).input("b", b.shape()).input("c", m, n)
                .node("Gemm", "gemm", List.of("a", "b", "c"), List.of("y"), attrs).output("y").build();
        check(runtimeB, feeds("a", a, "b", b, "c", Tensors.random(random, m, n)));
    }

    @Test
    void gemmBiasShapesAndDefaults() {
        Tensor a = Tensors.random(random, 4, 3);
        Tensor b = Tensors.random(random, 3, 5);
        for (long[] cShape : new long[][] {{}, {1}, {5}, {1, 5}, {4, 1}, {4, 5}}) {
            OnnxModel model = new ModelBuilder().input("a", 4, 3).initializer("b", b)
                    .initializer("c", Tensors.random(random, cShape))
                    .node("Gemm", "gemm", List.of("a", "b", "c"), List.of("y")).output("y").build();
            check(model, feeds("a", a));
        }
        OnnxModel noC = new ModelBuilder().input("a", 4, 3).initializer("b", b)
                .node("Gemm", "gemm", List.of("a", "b"), List.of("y"), attr("alpha", 2f)).output("y").build();
        check(noC, feeds("a", a));
        OnnxModel betaZero = new ModelBuilder().input("a", 4, 3).input("c", 4, 5).initializer("b", b)
                .node("Gemm", "gemm", List.of("a", "b", "c"), List.of("y"), attr("beta", 0f)).output("y").build();
        check(betaZero, feeds("a", a, "c", Tensors.random(random, 4, 5)));
    }

    /** Conv variants: {batch, channels, height, width, filters, kernel, group, stride, pad, dilation}. */
    @ParameterizedTest
    @ValueSource(strings = {"1,3,8,8,4,3,1,1,0,1", "2,4,9,7,6,3,2,1,1,1", "1,4,10,10,4,3,4,1,1,1",
        "1,2,11,9,3,3,1,2,1,1", "1,2,12,12,2,3,1,1,2,2", "1,3,7,8,5,1,1,1,0,1", "2,6,9,9,4,2,2,3,0,2"})
    void convVariants(String spec) {
        int[] p = Arrays.stream(spec.split(",")).mapToInt(Integer::parseInt).toArray();
        int n = p[0];
        int c = p[1];
        int h = p[2];
        int w = p[3];
        int m = p[4];
        int k = p[5];
        int group = p[6];
        Tensor x = Tensors.random(random, n, c, h, w);
        Tensor weight = Tensors.random(random, m, c / group, k, k);
        Tensor bias = Tensors.random(random, m);
        Onnx.AttributeProto[] attrs = {attr("group", (long) group), ints("strides", p[7], p[7]),
            ints("pads", p[8], p[8], p[8], p[8]), ints("dilations", p[9], p[9])};
        OnnxModel model = new ModelBuilder().input("x", n, c, h, w).initializer("w", weight).initializer("b", bias)
                .node("Conv", "conv", List.of("x", "w", "b"), List.of("y"), attrs).output("y").build();
        check(model, feeds("x", x));
        OnnxModel noBiasRuntimeWeight = new ModelBuilder().input("x", n, c, h, w).input("w", weight.shape())
                .node("Conv", "conv", List.of("x", "w"), List.of("y"), attrs).output("y").build();
        check(noBiasRuntimeWeight, feeds("x", x, "w", weight));
    }

    @Test
    void convAsymmetricPadsValidPaddingAndOneDimension() {
        Tensor x = Tensors.random(random, 1, 2, 6, 7);
        Tensor weight = Tensors.random(random, 3, 2, 2, 3);
        OnnxModel asymmetric = new ModelBuilder().input("x", 1, 2, 6, 7).initializer("w", weight)
                .node("Conv", "conv", List.of("x", "w"), List.of("y"), ints("pads", 0, 2, 1, 0), ints("strides", 1, 2))
                .output("y").build();
        check(asymmetric, feeds("x", x));
        OnnxModel valid = new ModelBuilder().input("x", 1, 2, 6, 7).initializer("w", weight)
                .node("Conv", "conv", List.of("x", "w"), List.of("y"), attr("auto_pad", "VALID"), ints("kernel_shape",
                        2, 3))
                .output("y").build();
        check(valid, feeds("x", x));
        Tensor x1 = Tensors.random(random, 2, 4, 15);
        OnnxModel oneD = new ModelBuilder().input("x", 2, 4, 15).initializer("w", Tensors.random(random, 6, 2, 3))
                .initializer("b", Tensors.random(random, 6))
                .node("Conv", "conv", List.of("x", "w", "b"), List.of("y"), attr("group", 2L), ints("strides", 2),
                        ints("pads", 1, 2), ints("dilations", 2))
                .output("y").build();
        check(oneD, feeds("x", x1));
    }

    @Test
    void largeConvReluOnParallelThreads() {
        Tensor x = Tensors.random(random, 2, 8, 32, 32);
        OnnxModel model = new ModelBuilder().input("x", 2, 8, 32, 32)
                .initializer("w", Tensors.random(random, 16, 8, 3, 3)).initializer("b", Tensors.random(random, 16))
                .node("Conv", "conv", List.of("x", "w", "b"), List.of("c"), ints("pads", 1, 1, 1, 1))
                .node("Relu", "relu", List.of("c"), List.of("y"))
                .output("y").build();
        check(model, feeds("x", x), 1, true, 4);
    }

    @Test
    void broadcastingAddAndMul() {
        long[][][] shapes = {{{2, 3, 4}, {4}}, {{2, 1, 4}, {3, 1}}, {{}, {2, 3}}, {{1}, {5, 1, 2}},
            {{3, 4}, {3, 4}}, {{2, 3, 1, 5}, {1, 3, 4, 1}}, {{4, 1}, {}}};
        for (long[][] pair : shapes) {
            for (String op : List.of("Add", "Mul")) {
                OnnxModel model = new ModelBuilder().input("a", pair[0]).input("b", pair[1])
                        .node(op, "op", List.of("a", "b"), List.of("y")).output("y").build();
                check(model, feeds("a", Tensors.random(random, pair[0]), "b", Tensors.random(random, pair[1])));
                OnnxModel constant = new ModelBuilder().input("a", pair[0])
                        .initializer("b", Tensors.random(random, pair[1]))
                        .node(op, "op", List.of("b", "a"), List.of("y")).output("y").build();
                check(constant, feeds("a", Tensors.random(random, pair[0])));
            }
        }
    }

    @Test
    void matMulShapes() {
        long[][][] shapes = {{{3, 4}, {4, 5}}, {{2, 3, 4, 5}, {5, 6}}, {{2, 1, 4, 5}, {3, 5, 6}}, {{4}, {4, 5}},
            {{3, 4}, {4}}, {{4}, {4}}, {{2, 3, 4}, {4}}, {{5}, {2, 5, 3}}};
        for (long[][] pair : shapes) {
            OnnxModel runtime = new ModelBuilder().input("a", pair[0]).input("b", pair[1])
                    .node("MatMul", "mm", List.of("a", "b"), List.of("y")).output("y").build();
            check(runtime, feeds("a", Tensors.random(random, pair[0]), "b", Tensors.random(random, pair[1])));
            OnnxModel constant = new ModelBuilder().input("a", pair[0])
                    .initializer("b", Tensors.random(random, pair[1]))
                    .node("MatMul", "mm", List.of("a", "b"), List.of("y")).output("y").build();
            check(constant, feeds("a", Tensors.random(random, pair[0])));
        }
    }

    @Test
    void groupWithSeveralOutputsAndSharedWeights() {
        // two heads share w; both the hidden value and the heads leave the group
        OnnxModel model = new ModelBuilder().input("x", 3, 4).input("z", 3, 4)
                .initializer("w", Tensors.random(random, 4, 4))
                .node("MatMul", "mx", List.of("x", "w"), List.of("hx"))
                .node("MatMul", "mz", List.of("z", "w"), List.of("hz"))
                .node("Relu", "rx", List.of("hx"), List.of("ax"))
                .node("Add", "sum", List.of("ax", "hz"), List.of("s"))
                .node("Mul", "prod", List.of("s", "hz"), List.of("p"))
                .output("p").output("hz").output("s").build();
        ExampleRuns.Result result = check(model, feeds("x", Tensors.random(random, 3, 4), "z",
                Tensors.random(random, 3, 4)));
        ProgramKernel kernel = (ProgramKernel) result.kernels().get(0);
        assertEquals(1, kernel.program().weights().size(), "w is packed once for both MatMuls");
        assertEquals(new ArrayList<>(List.of("hz", "s", "p")), kernel.program().outputNames());
    }
}
