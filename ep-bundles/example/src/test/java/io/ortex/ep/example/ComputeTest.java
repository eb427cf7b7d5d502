package io.ortex.ep.example;

import static io.ortex.ep.example.ModelBuilder.attr;
import static io.ortex.ep.example.ModelBuilder.ints;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx;
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

    /** Runs the model with the example EP (all of it in {@code groups} groups) and on the CPU EP; compares. */
    private MiniSession.Result check(OnnxModel model, Map<String, Tensor> feeds, int groups, boolean fuse,
                                     KernelContext context) {
        return check(model, feeds, groups, fuse, context, 1e-5);
    }

    private MiniSession.Result check(OnnxModel model, Map<String, Tensor> feeds, int groups, boolean fuse,
                                     KernelContext context, double atol) {
        MiniSession.Result result = MiniSession.runWithExample(model, feeds, new ExampleExecutionProvider(fuse),
                context);
        assertEquals(groups, result.groups().size(), "groups");
        assertEquals(model.graph().nodes().size(), result.groups().stream().mapToInt(List::size).sum(),
                "every node is claimed");
        MiniSession.assertClose(MiniSession.runOnCpu(model, feeds), result.outputs(), atol);
        return result;
    }

    private MiniSession.Result check(OnnxModel model, Map<String, Tensor> feeds) {
        return check(model, feeds, 1, true, MiniSession.SEQUENTIAL);
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
                .node("mm1", "MatMul", List.of("x", "w1"), "h1")
                .node("add1", "Add", List.of("h1", "b1"), "h2")
                .node("relu", "Relu", List.of("h2"), "h3")
                .node("mm2", "MatMul", List.of("h3", "w2"), "h4")
                .node("add2", "Add", List.of("h4", "b2"), "y")
                .output("y").build();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void mlpMatchesTheCpuEp(boolean fuse) {
        OnnxModel model = mlp(16, 32, 5);
        check(model, feeds("x", Tensors.random(random, 3, 16)), 1, fuse, MiniSession.SEQUENTIAL);
        check(model, feeds("x", Tensors.random(random, 1, 16)), 1, fuse, MiniSession.SEQUENTIAL);
    }

    @Test
    void largeMlpMatchesOnParallelThreads() {
        OnnxModel model = mlp(256, 512, 64);
        // the second layer sums 512 products of hidden values up to ~10: rounding reaches a few 1e-5 absolute
        check(model, feeds("x", Tensors.random(random, 64, 256)), 1, true, MiniSession.PARALLEL, 2e-4);
    }

    @Test
    void mlpWithSoftmaxRunsSoftmaxOnTheCpuEp() {
        OnnxModel model = new ModelBuilder()
                .input("x", 2, 4)
                .initializer("w1", Tensors.random(random, 4, 8)).initializer("b1", Tensors.random(random, 8))
                .initializer("w2", Tensors.random(random, 8, 3)).initializer("b2", Tensors.random(random, 3))
                .node("mm1", "MatMul", List.of("x", "w1"), "h1")
                .node("add1", "Add", List.of("h1", "b1"), "h2")
                .node("relu", "Relu", List.of("h2"), "h3")
                .node("mm2", "MatMul", List.of("h3", "w2"), "h4")
                .node("add2", "Add", List.of("h4", "b2"), "logits")
                .node("softmax", "Softmax", List.of("logits"), "y")
                .output("y").build();
        Map<String, Tensor> feeds = feeds("x", Tensors.random(random, 2, 4));
        MiniSession.Result result = MiniSession.runWithExample(model, feeds, new ExampleExecutionProvider(true),
                MiniSession.SEQUENTIAL);
        assertEquals(1, result.groups().size());
        MiniSession.assertClose(MiniSession.runOnCpu(model, feeds), result.outputs());
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
                .node("gemm", "Gemm", List.of("a", "b", "c"), "y", attrs).output("y").build();
        check(constantB, feeds("a", a));
        OnnxModel runtimeB = new ModelBuilder().input("a", a.shape()).input("b", b.shape()).input("c", m, n)
                .node("gemm", "Gemm", List.of("a", "b", "c"), "y", attrs).output("y").build();
        check(runtimeB, feeds("a", a, "b", b, "c", Tensors.random(random, m, n)));
    }

    @Test
    void gemmBiasShapesAndDefaults() {
        Tensor a = Tensors.random(random, 4, 3);
        Tensor b = Tensors.random(random, 3, 5);
        for (long[] cShape : new long[][] {{}, {1}, {5}, {1, 5}, {4, 1}, {4, 5}}) {
            OnnxModel model = new ModelBuilder().input("a", 4, 3).initializer("b", b)
                    .initializer("c", Tensors.random(random, cShape))
                    .node("gemm", "Gemm", List.of("a", "b", "c"), "y").output("y").build();
            check(model, feeds("a", a));
        }
        OnnxModel noC = new ModelBuilder().input("a", 4, 3).initializer("b", b)
                .node("gemm", "Gemm", List.of("a", "b"), "y", attr("alpha", 2f)).output("y").build();
        check(noC, feeds("a", a));
        OnnxModel betaZero = new ModelBuilder().input("a", 4, 3).input("c", 4, 5).initializer("b", b)
                .node("gemm", "Gemm", List.of("a", "b", "c"), "y", attr("beta", 0f)).output("y").build();
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
                .node("conv", "Conv", List.of("x", "w", "b"), "y", attrs).output("y").build();
        check(model, feeds("x", x));
        OnnxModel noBiasRuntimeWeight = new ModelBuilder().input("x", n, c, h, w).input("w", weight.shape())
                .node("conv", "Conv", List.of("x", "w"), "y", attrs).output("y").build();
        check(noBiasRuntimeWeight, feeds("x", x, "w", weight));
    }

    @Test
    void convAsymmetricPadsValidPaddingAndOneDimension() {
        Tensor x = Tensors.random(random, 1, 2, 6, 7);
        Tensor weight = Tensors.random(random, 3, 2, 2, 3);
        OnnxModel asymmetric = new ModelBuilder().input("x", 1, 2, 6, 7).initializer("w", weight)
                .node("conv", "Conv", List.of("x", "w"), "y", ints("pads", 0, 2, 1, 0), ints("strides", 1, 2))
                .output("y").build();
        check(asymmetric, feeds("x", x));
        OnnxModel valid = new ModelBuilder().input("x", 1, 2, 6, 7).initializer("w", weight)
                .node("conv", "Conv", List.of("x", "w"), "y", attr("auto_pad", "VALID"), ints("kernel_shape", 2, 3))
                .output("y").build();
        check(valid, feeds("x", x));
        Tensor x1 = Tensors.random(random, 2, 4, 15);
        OnnxModel oneD = new ModelBuilder().input("x", 2, 4, 15).initializer("w", Tensors.random(random, 6, 2, 3))
                .initializer("b", Tensors.random(random, 6))
                .node("conv", "Conv", List.of("x", "w", "b"), "y", attr("group", 2L), ints("strides", 2),
                        ints("pads", 1, 2), ints("dilations", 2))
                .output("y").build();
        check(oneD, feeds("x", x1));
    }

    @Test
    void largeConvReluOnParallelThreads() {
        Tensor x = Tensors.random(random, 2, 8, 32, 32);
        OnnxModel model = new ModelBuilder().input("x", 2, 8, 32, 32)
                .initializer("w", Tensors.random(random, 16, 8, 3, 3)).initializer("b", Tensors.random(random, 16))
                .node("conv", "Conv", List.of("x", "w", "b"), "c", ints("pads", 1, 1, 1, 1))
                .node("relu", "Relu", List.of("c"), "y")
                .output("y").build();
        check(model, feeds("x", x), 1, true, MiniSession.PARALLEL);
    }

    @Test
    void broadcastingAddAndMul() {
        long[][][] shapes = {{{2, 3, 4}, {4}}, {{2, 1, 4}, {3, 1}}, {{}, {2, 3}}, {{1}, {5, 1, 2}},
            {{3, 4}, {3, 4}}, {{2, 3, 1, 5}, {1, 3, 4, 1}}, {{4, 1}, {}}};
        for (long[][] pair : shapes) {
            for (String op : List.of("Add", "Mul")) {
                OnnxModel model = new ModelBuilder().input("a", pair[0]).input("b", pair[1])
                        .node("op", op, List.of("a", "b"), "y").output("y").build();
                check(model, feeds("a", Tensors.random(random, pair[0]), "b", Tensors.random(random, pair[1])));
                OnnxModel constant = new ModelBuilder().input("a", pair[0])
                        .initializer("b", Tensors.random(random, pair[1]))
                        .node("op", op, List.of("b", "a"), "y").output("y").build();
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
                    .node("mm", "MatMul", List.of("a", "b"), "y").output("y").build();
            check(runtime, feeds("a", Tensors.random(random, pair[0]), "b", Tensors.random(random, pair[1])));
            OnnxModel constant = new ModelBuilder().input("a", pair[0])
                    .initializer("b", Tensors.random(random, pair[1]))
                    .node("mm", "MatMul", List.of("a", "b"), "y").output("y").build();
            check(constant, feeds("a", Tensors.random(random, pair[0])));
        }
    }

    @Test
    void groupWithSeveralOutputsAndSharedWeights() {
        // two heads share w; both the hidden value and the heads leave the group
        OnnxModel model = new ModelBuilder().input("x", 3, 4).input("z", 3, 4)
                .initializer("w", Tensors.random(random, 4, 4))
                .node("mx", "MatMul", List.of("x", "w"), "hx")
                .node("mz", "MatMul", List.of("z", "w"), "hz")
                .node("rx", "Relu", List.of("hx"), "ax")
                .node("sum", "Add", List.of("ax", "hz"), "s")
                .node("prod", "Mul", List.of("s", "hz"), "p")
                .output("p").output("hz").output("s").build();
        MiniSession.Result result = check(model, feeds("x", Tensors.random(random, 3, 4), "z",
                Tensors.random(random, 3, 4)));
        ProgramKernel kernel = (ProgramKernel) result.kernels().get(0);
        assertEquals(1, kernel.program().weights().size(), "w is packed once for both MatMuls");
        assertEquals(new ArrayList<>(List.of("hz", "s", "p")), kernel.program().outputNames());
    }
}
