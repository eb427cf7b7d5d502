package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.FusedGroups.fusedGroups;
import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CPU EP's fusions through the real runtime: each pattern, built as exporters write it, is claimed as one group
 * and gives what the same model gives with the fusions turned off ({@code CpuFusions} disabled), within float
 * rounding; patterns that do not qualify are left as single nodes.
 */
class CpuFusionsTest {
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

    private static NodeProto.Builder node(String op, String name, List<String> in, String out) {
        return NodeProto.newBuilder().setOpType(op).setName(name).addAllInput(in).addOutput(out);
    }

    /** Runs a model with and without the fusions; returns the fused run's assignment after checking the outputs. */
    private static List<NodeAssignment> compare(ModelBuilder model, Map<String, Tensor> feeds) {
        Map<String, Tensor> fused;
        List<NodeAssignment> assignment;
        try (Session s = env.createSession(model.bytes(), new SessionOptions())) {
            fused = s.run(feeds);
            assignment = s.assignment();
        }
        Map<String, Tensor> plain;
        try (Session s = env.createSession(model.bytes(), new SessionOptions()
                .config(SessionOptions.DISABLE_SPECIFIED_OPTIMIZERS, "CpuFusions"))) {
            plain = s.run(feeds);
            assertEquals(s.assignment().size(), s.assignment().stream().map(NodeAssignment::partition).distinct()
                    .count(), "without fusions every node is a partition of its own");
        }
        for (Map.Entry<String, Tensor> e : plain.entrySet()) {
            float[] want = e.getValue().floats();
            float[] got = fused.get(e.getKey()).floats();
            assertEquals(want.length, got.length);
            for (int i = 0; i < want.length; i++) {
                assertEquals(want[i], got[i], 1e-4 * Math.max(1, Math.abs(want[i])), e.getKey() + "[" + i + "]");
            }
        }
        return assignment;
    }

    private static ModelBuilder matMulBias(int k, int n, boolean biasFirst) {
        return TestModels.builder()
                .input("x", FLOAT, 2, 5, k)
                .floats("w", new long[] {k, n}, uniform(k * n, 1))
                .floats("b", new long[] {n}, uniform(n, 2))
                .node("MatMul", "mm", List.of("x", "w"), List.of("p"))
                .node("Add", "add", biasFirst ? List.of("b", "p") : List.of("p", "b"), List.of("y"))
                .output("y", FLOAT, 2, 5, n);
    }

    @Test
    void matMulWithItsBiasIsOneProduct() {
        for (boolean biasFirst : new boolean[] {false, true}) {
            List<NodeAssignment> a = compare(matMulBias(37, 19, biasFirst),
                    Map.of("x", Tensor.ofFloats(uniform(2 * 5 * 37, 3), 2, 5, 37)));
            assertEquals(List.of("MatMul+Add"), fusedGroups(a));
        }
    }

    @Test
    void matMulBiasAndAWrittenOutGeluAreOneProductInBothOrders() {
        for (boolean halfFirst : new boolean[] {false, true}) {
            ModelBuilder m = TestModels.builder()
                    .input("x", FLOAT, 3, 16)
                    .floats("w", new long[] {16, 24}, uniform(16 * 24, 4))
                    .floats("b", new long[] {24}, uniform(24, 5))
                    .floats("sqrt2", new long[] {}, new float[] {(float) Math.sqrt(2)})
                    .floats("one", new long[] {}, new float[] {1f})
                    .floats("half", new long[] {}, new float[] {0.5f})
                    .node("MatMul", "mm", List.of("x", "w"), List.of("p"))
                    .node("Add", "add", List.of("p", "b"), List.of("h"))
                    .node("Div", "div", List.of("h", "sqrt2"), List.of("d"))
                    .node("Erf", "erf", List.of("d"), List.of("e"))
                    .node("Add", "plus1", List.of("e", "one"), List.of("f"));
            if (halfFirst) {
                m.node("Mul", "half", List.of("h", "half"), List.of("hh")).node("Mul", "mul", List.of("hh", "f"),
                        List.of("y"));
            } else {
                m.node("Mul", "mul", List.of("h", "f"), List.of("g")).node("Mul", "half", List.of("g", "half"),
                        List.of("y"));
            }
            m.output("y", FLOAT, 3, 24);
            List<NodeAssignment> a = compare(m, Map.of("x", Tensor.ofFloats(uniform(48, 6), 3, 16)));
            assertEquals(1, fusedGroups(a).size(), fusedGroups(a).toString());
            assertEquals(7, a.size(), "every node runs in the fused group");
        }
    }

    @Test
    void aWrittenOutLayerNormalizationIsOneKernel() {
        for (boolean axesAsInput : new boolean[] {false, true}) {
            ModelBuilder m = TestModels.builder()
                    .input("x", FLOAT, 4, 32)
                    .floats("two", new long[] {}, new float[] {2f})
                    .floats("eps", new long[] {}, new float[] {1e-5f})
                    .floats("gamma", new long[] {32}, uniform(32, 7))
                    .floats("beta", new long[] {32}, uniform(32, 8))
                    .longs("axes", new long[] {-1}, 1);
            NodeProto.Builder mean = node("ReduceMean", "mean", axesAsInput ? List.of("x", "axes") : List.of("x"),
                    "mu");
            NodeProto.Builder mean2 = node("ReduceMean", "mean2", axesAsInput ? List.of("p", "axes") : List.of("p"),
                    "var");
            if (!axesAsInput) {
                mean.addAttribute(ints("axes", -1));
                mean2.addAttribute(ints("axes", -1));
            }
            m.node(mean).node("Sub", "sub", List.of("x", "mu"), List.of("d"))
                    .node("Pow", "pow", List.of("d", "two"), List.of("p")).node(mean2)
                    .node("Add", "addeps", List.of("var", "eps"), List.of("ve"))
                    .node("Sqrt", "sqrt", List.of("ve"), List.of("sd"))
                    .node("Div", "div", List.of("d", "sd"), List.of("n"))
                    .node("Mul", "scale", List.of("n", "gamma"), List.of("g"))
                    .node("Add", "shift", List.of("g", "beta"), List.of("y"))
                    .output("y", FLOAT, 4, 32);
            if (axesAsInput) {
                m.opset(18);
            }
            float[] x = uniform(128, 9);
            for (int i = 0; i < x.length; i++) {
                x[i] = x[i] * 3 + 1;
            }
            List<NodeAssignment> a = compare(m, Map.of("x", Tensor.ofFloats(x, 4, 32)));
            assertEquals(List.of("ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add"), fusedGroups(a));
        }
    }

    private static ModelBuilder attention(String scaleOp, boolean mask) {
        return attention(scaleOp, mask, -1);
    }

    private static ModelBuilder attention(String scaleOp, boolean mask, long axis) {
        ModelBuilder m = TestModels.builder()
                .input("q", FLOAT, 2, 3, 10, 8)
                .input("kt", FLOAT, 2, 3, 8, 12)
                .input("v", FLOAT, 2, 3, 12, 8)
                .input("mask", FLOAT, 2, 1, 1, 12)
                .floats("c", new long[] {}, new float[] {scaleOp.equals("Div") ? 2.828427f : 0.35355339f})
                .node("MatMul", "qk", List.of("q", "kt"), List.of("s"));
        String last = "s";
        if (!scaleOp.isEmpty()) {
            m.node(scaleOp, "scale", List.of("s", "c"), List.of("s2"));
            last = "s2";
        }
        if (mask) {
            m.node("Add", "mask", List.of(last, "mask"), List.of("s3"));
            last = "s3";
        }
        m.node(node("Softmax", "softmax", List.of(last), "p").addAttribute(attr("axis", axis)))
                .node("MatMul", "pv", List.of("p", "v"), List.of("y"))
                .output("y", FLOAT, 2, 3, 10, 8);
        return m;
    }

    private static Map<String, Tensor> attentionFeeds() {
        float[] mask = new float[24];
        for (int i = 0; i < 24; i++) {
            mask[i] = i % 5 == 4 ? -10000f : 0f;
        }
        return Map.of("q", Tensor.ofFloats(uniform(480, 10), 2, 3, 10, 8),
                "kt", Tensor.ofFloats(uniform(576, 11), 2, 3, 8, 12),
                "v", Tensor.ofFloats(uniform(576, 12), 2, 3, 12, 8),
                "mask", Tensor.ofFloats(mask, 2, 1, 1, 12));
    }

    @Test
    void scaledMaskedAttentionIsOneKernel() {
        assertEquals(List.of("MatMul+Div+Add+Softmax+MatMul"), fusedGroups(compare(attention("Div", true),
                attentionFeeds())));
        assertEquals(List.of("MatMul+Mul+Add+Softmax+MatMul"), fusedGroups(compare(attention("Mul", true),
                attentionFeeds())));
        assertEquals(List.of("MatMul+Softmax+MatMul"), fusedGroups(compare(attention("", false),
                attentionFeeds())));
        // as opset 11 exporters write it: the last axis by number, which the kernel checks against the rank
        assertEquals(List.of("MatMul+Div+Add+Softmax+MatMul"), fusedGroups(compare(attention("Div", true, 3)
                .opset(11), attentionFeeds())));
        // another axis: the fused group runs its nodes one by one
        assertEquals(List.of("MatMul+Div+Add+Softmax+MatMul"), fusedGroups(compare(attention("Div", true, 2)
                .opset(11), attentionFeeds())));
    }

    /**
     * Attention as transformer exporters write it: the heads made by Transposes of {@code [B, S, H, D]} tensors (Q,
     * V and, with {@code outputTranspose}, the output by {@code [0, 2, 1, 3]}, Kt by {@code [0, 2, 3, 1]}), K with
     * {@code kBatch} leading rows.
     */
    private static ModelBuilder attentionOfHeads(boolean outputTranspose, int kBatch) {
        ModelBuilder m = TestModels.builder()
                .input("q4", FLOAT, 2, 10, 3, 8)
                .input("k4", FLOAT, kBatch, 12, 3, 8)
                .input("v4", FLOAT, 2, 12, 3, 8)
                .input("mask", FLOAT, 2, 1, 1, 12)
                .floats("c", new long[] {}, new float[] {2.828427f})
                .node(node("Transpose", "qT", List.of("q4"), "q").addAttribute(ints("perm", 0, 2, 1, 3)))
                .node(node("Transpose", "kT", List.of("k4"), "kt").addAttribute(ints("perm", 0, 2, 3, 1)))
                .node(node("Transpose", "vT", List.of("v4"), "v").addAttribute(ints("perm", 0, 2, 1, 3)))
                .node("MatMul", "qk", List.of("q", "kt"), List.of("s"))
                .node("Div", "scale", List.of("s", "c"), List.of("s2"))
                .node("Add", "mask", List.of("s2", "mask"), List.of("s3"))
                .node(node("Softmax", "softmax", List.of("s3"), "p").addAttribute(attr("axis", -1)))
                .node("MatMul", "pv", List.of("p", "v"), List.of("y"));
        if (outputTranspose) {
            m.node(node("Transpose", "yT", List.of("y"), "out").addAttribute(ints("perm", 0, 2, 1, 3)))
                    .output("out", FLOAT, 2, 10, 3, 8);
        } else {
            m.output("y", FLOAT, 2, 3, 10, 8);
        }
        return m;
    }

    private static Map<String, Tensor> headsFeeds(int kBatch) {
        return Map.of("q4", Tensor.ofFloats(uniform(480, 20), 2, 10, 3, 8),
                "k4", Tensor.ofFloats(uniform(kBatch * 288, 21), kBatch, 12, 3, 8),
                "v4", Tensor.ofFloats(uniform(576, 22), 2, 12, 3, 8),
                "mask", attentionFeeds().get("mask"));
    }

    @Test
    void theTransposesThatMakeTheHeadsArePartOfTheAttention() {
        assertEquals(List.of("Transpose+Transpose+Transpose+MatMul+Div+Add+Softmax+MatMul+Transpose"),
                fusedGroups(compare(attentionOfHeads(true, 2), headsFeeds(2))));
        // without the Transpose after it the output keeps the heads' layout: the others stay nodes of their own
        assertEquals(List.of("MatMul+Div+Add+Softmax+MatMul"), fusedGroups(compare(attentionOfHeads(false, 2),
                headsFeeds(2))));
        // K broadcast over the batch: the kernel leaves the whole group, Transposes included, to the nodes
        assertEquals(List.of("Transpose+Transpose+Transpose+MatMul+Div+Add+Softmax+MatMul+Transpose"),
                fusedGroups(compare(attentionOfHeads(true, 1), headsFeeds(1))));
    }

    @Test
    void aFusionWhoseShapesTheFastPathDoesNotTakeRunsItsNodesOneByOne() {
        // K broadcast over the batch: the attention kernel leaves it to the nodes' own kernels
        ModelBuilder m = TestModels.builder()
                .input("q", FLOAT, 2, 3, 10, 8)
                .input("kt", FLOAT, 1, 1, 8, 12)
                .input("v", FLOAT, 2, 3, 12, 8)
                .node("MatMul", "qk", List.of("q", "kt"), List.of("s"))
                .node(node("Softmax", "softmax", List.of("s"), "p").addAttribute(attr("axis", -1)))
                .node("MatMul", "pv", List.of("p", "v"), List.of("y"))
                .output("y", FLOAT, 2, 3, 10, 8);
        Map<String, Tensor> feeds = Map.of("q", Tensor.ofFloats(uniform(480, 10), 2, 3, 10, 8),
                "kt", Tensor.ofFloats(uniform(96, 11), 1, 1, 8, 12),
                "v", Tensor.ofFloats(uniform(576, 12), 2, 3, 12, 8));
        assertEquals(List.of("MatMul+Softmax+MatMul"), fusedGroups(compare(m, feeds)));
    }

    @Test
    void aFallbackReadsTheConstantsTheFusionTookFromTheRuntime() {
        // gamma and beta of one value broadcast over the row: the LayerNorm kernel leaves it to the nodes, which
        // get the constants the fused node no longer receives from the initializers themselves
        ModelBuilder m = TestModels.builder()
                .input("x", FLOAT, 4, 32)
                .floats("two", new long[0], 2f)
                .floats("eps", new long[0], 1e-5f)
                .floats("gamma", new long[] {1}, 1.5f)
                .floats("beta", new long[] {1}, -0.25f);
        layerNormOf(m, "x").output("y", FLOAT, 4, 32);
        List<NodeAssignment> a = compare(m, Map.of("x", Tensor.ofFloats(uniform(128, 9), 4, 32)));
        assertEquals(List.of("ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add"), fusedGroups(a));
    }

    /**
     * Appends a LayerNormalization of {@code x} over its last axis as exporters write it out, into {@code y}, reading
     * the initializers {@code two}, {@code eps}, {@code gamma} and {@code beta}.
     */
    private static ModelBuilder layerNormOf(ModelBuilder m, String x) {
        return m.node(node("ReduceMean", "mean", List.of(x), "mu").addAttribute(ints("axes", -1)))
                .node("Sub", "sub", List.of(x, "mu"), List.of("d"))
                .node("Pow", "pow", List.of("d", "two"), List.of("p"))
                .node(node("ReduceMean", "mean2", List.of("p"), "var").addAttribute(ints("axes", -1)))
                .node("Add", "addeps", List.of("var", "eps"), List.of("ve"))
                .node("Sqrt", "sqrt", List.of("ve"), List.of("sd"))
                .node("Div", "div", List.of("d", "sd"), List.of("n"))
                .node("Mul", "scale", List.of("n", "gamma"), List.of("g"))
                .node("Add", "shift", List.of("g", "beta"), List.of("y"));
    }

    /** {@code y = LayerNorm(a + b)} over rows of 32, the sum also a graph output when {@code sumIsOutput}. */
    private static ModelBuilder residualLayerNorm(long[] bShape, boolean sumIsOutput) {
        ModelBuilder m = TestModels.builder()
                .input("a", FLOAT, 4, 32)
                .input("b", FLOAT, bShape)
                .floats("two", new long[0], 2f)
                .floats("eps", new long[0], 1e-5f)
                .floats("gamma", new long[] {32}, uniform(32, 7))
                .floats("beta", new long[] {32}, uniform(32, 8))
                .node("Add", "residual", List.of("a", "b"), List.of("x"));
        layerNormOf(m, "x").output("y", FLOAT, 4, 32);
        return sumIsOutput ? m.output("x", FLOAT, 4, 32) : m;
    }

    @Test
    void theResidualAddBeforeALayerNormalizationJoinsIt() {
        Map<String, Tensor> feeds = Map.of("a", Tensor.ofFloats(uniform(128, 9), 4, 32),
                "b", Tensor.ofFloats(uniform(128, 10), 4, 32));
        assertEquals(List.of("Add+ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add"),
                fusedGroups(compare(residualLayerNorm(new long[] {4, 32}, false), feeds)));
        // an operand that broadcasts: the kernel leaves the group to the nodes
        Map<String, Tensor> row = Map.of("a", feeds.get("a"), "b", Tensor.ofFloats(uniform(32, 11), 32));
        assertEquals(List.of("Add+ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add"),
                fusedGroups(compare(residualLayerNorm(new long[] {32}, false), row)));
        // the sum is read outside the normalization: the Add stays a node of its own
        assertEquals(List.of("ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add"),
                fusedGroups(compare(residualLayerNorm(new long[] {4, 32}, true), feeds)));
    }

    /** Gathers rows of a 2048 x 256 table (2 MiB, left in the model file) by int64 indices of shape [2, 3]. */
    private static ModelBuilder embedding(float[] table) {
        return TestModels.builder()
                .input("ids", ElementType.INT64, 2, 3)
                .floats("table", new long[] {2048, 256}, table)
                .node("Gather", "embed", List.of("table", "ids"), List.of("rows"))
                .output("rows", FLOAT, 2, 3, 256);
    }

    @Test
    void aGatherFromALargeTableReadsItsRowsFromTheModelFilesMapping(@TempDir Path dir) throws IOException {
        float[] table = uniform(2048 * 256, 12);
        Path file = Files.write(dir.resolve("embed.onnx"), embedding(table).bytes());
        Tensor ids = Tensor.ofLongs(new long[] {0, 5, 2047, -1, -2048, 5}, 2, 3);
        try (Session mapped = env.createSession(file, new SessionOptions());
             Session plain = env.createSession(file, new SessionOptions()
                     .config(SessionOptions.DISABLE_SPECIFIED_OPTIMIZERS, "CpuFusions"))) {
            float[] rows = mapped.run(Map.of("ids", ids)).get("rows").floats();
            long[] picked = {0, 5, 2047, 2047, 0, 5};
            for (int i = 0; i < picked.length; i++) {
                assertArrayEquals(Arrays.copyOfRange(table, (int) picked[i] * 256, (int) picked[i] * 256 + 256),
                        Arrays.copyOfRange(rows, i * 256, i * 256 + 256), "row " + i);
            }
            assertArrayEquals(plain.run(Map.of("ids", ids)).get("rows").floats(), rows);

            OrtexException outOfRange = assertThrows(OrtexException.class,
                    () -> mapped.run(Map.of("ids", Tensor.ofLongs(new long[] {0, 1, 2, 3, 2048, 4}, 2, 3))));
            assertTrue(outOfRange.getMessage().contains("'embed'")
                    && outOfRange.getMessage().contains("indices value 2048 is out of range"), outOfRange.getMessage());

            // the file cut short under the sessions: the one that decoded the table still runs; the mapped one can
            // no longer read its rows, and the run fails saying why
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(4096);
            }
            assertArrayEquals(rows, plain.run(Map.of("ids", ids)).get("rows").floats());
            OrtexException cut = assertThrows(OrtexException.class, () -> mapped.run(Map.of("ids", ids)));
            assertTrue(cut.getMessage().contains("cut short since the session was created"), cut.getMessage());
        }
    }

    @Test
    void patternsThatDoNotQualifyStaySingleNodes() {
        // the product is also a graph output: the MatMul and the Add cannot become one kernel
        ModelBuilder m = matMulBias(8, 4, false).output("p", FLOAT, 2, 5, 4);
        assertTrue(fusedGroups(compare(m, Map.of("x", Tensor.ofFloats(uniform(80, 3), 2, 5, 8)))).isEmpty());
        // a bias of another length broadcasts differently
        ModelBuilder wrongBias = TestModels.builder()
                .input("x", FLOAT, 2, 8)
                .floats("w", new long[] {8, 4}, uniform(32, 1))
                .floats("b", new long[] {2, 4}, uniform(2 * 4, 2))
                .node("MatMul", "mm", List.of("x", "w"), List.of("p"))
                .node("Add", "add", List.of("p", "b"), List.of("y"))
                .output("y", FLOAT, 2, 4);
        assertTrue(fusedGroups(compare(wrongBias, Map.of("x", Tensor.ofFloats(uniform(16, 3), 2, 8)))).isEmpty());
    }

    @Test
    void theBasicLevelRunsNoFusion() {
        try (Session s = env.createSession(matMulBias(8, 4, false).bytes(), new SessionOptions()
                .graphOptimizationLevel(io.ortex.api.GraphOptimizationLevel.BASIC))) {
            assertNotEquals(s.assignment().get(0).partition(), s.assignment().get(1).partition());
        }
    }
}
