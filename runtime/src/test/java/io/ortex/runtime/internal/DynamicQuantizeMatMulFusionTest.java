package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.FusedGroups.fusedGroups;
import static io.ortex.testing.Attributes.attr;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.testing.ModelBuilder;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fusion of DynamicQuantizeLinear with the MatMulInteger chains after it, through the real runtime, on models
 * written as dynamic-quantization tools write them: the fused group gives exactly what its nodes give one by one
 * ({@code CpuFusions} disabled), bit for bit, since it does the same integer product and the same float32 scale
 * and bias operations; patterns that do not qualify stay single nodes.
 */
class DynamicQuantizeMatMulFusionTest {
    private static final ElementType FLOAT = ElementType.FLOAT;
    /** The op types of one chain with a bias, as the fused group lists them (scales' Mul first). */
    private static final String CHAIN = "Mul+MatMulInteger+Cast+Mul+Add";
    private static Environment env;

    @BeforeAll
    static void open() {
        env = Environment.create();
    }

    @AfterAll
    static void close() {
        env.close();
    }

    /** One weight of a model: its shape, type and whether its chain ends in a bias. */
    private record Weight(String name, int n, ElementType type, boolean bias, boolean perColumn) {
    }

    private static Tensor bytes(ElementType type, long[] shape, SplittableRandom r, boolean extreme) {
        byte[] v = new byte[Tensor.checkedElementCount(shape)];
        int lo = type == ElementType.UINT8 ? 0 : -128;
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (extreme ? (r.nextBoolean() ? lo : lo + 255) : lo + r.nextInt(256));
        }
        return Tensor.of(type, shape, v);
    }

    private static float[] floats(int n, SplittableRandom r, double spread) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) ((r.nextDouble() * 2 - 1) * spread);
        }
        return v;
    }

    /**
     * {@code x [2, 3, k]} quantized once, then one MatMulInteger chain per weight, each written as the tools do:
     * {@code Mul(x_scale, w_scale)}, {@code MatMulInteger(x_q, w, x_zero_point, w_zero_point)}, {@code Cast(to:
     * float)}, {@code Mul(product, scales)} and {@code Add(bias, scaled)}; output {@code y_<name>}.
     */
    private static ModelBuilder model(int k, List<Weight> weights, long seed, boolean extreme) {
        return model(k, weights, seed, extreme, true);
    }

    /** {@link #model(int, List, long, boolean)}, with the shapes of the input and outputs declared or left open. */
    private static ModelBuilder model(int k, List<Weight> weights, long seed, boolean extreme, boolean declared) {
        SplittableRandom r = new SplittableRandom(seed);
        ModelBuilder m = TestModels.builder().opset(11);
        if (declared) {
            m.input("x", FLOAT, 2, 3, k);
        } else {
            m.untypedInput("x");
        }
        m.node("DynamicQuantizeLinear", "quantize", List.of("x"), List.of("xq", "xs", "xz"));
        for (Weight w : weights) {
            String p = w.name();
            m.initializer(p + "_w", bytes(w.type(), new long[] {k, w.n()}, r, extreme))
                    .initializer(p + "_wz", w.perColumn() ? bytes(w.type(), new long[] {w.n()}, r, false)
                            : bytes(w.type(), new long[0], r, false))
                    .floats(p + "_ws", w.perColumn() ? new long[] {w.n()} : new long[0],
                            w.perColumn() ? floats(w.n(), r, 0.01) : new float[] {0.0042f})
                    .node("Mul", p + "_scales", List.of("xs", p + "_ws"), List.of(p + "_s"))
                    .node("MatMulInteger", p + "_mm", List.of("xq", p + "_w", "xz", p + "_wz"), List.of(p + "_i"))
                    .node("Cast", p + "_cast", List.of(p + "_i"), List.of(p + "_f"), attr("to", 1))
                    .node("Mul", p + "_mul", List.of(p + "_f", p + "_s"), List.of(w.bias() ? p + "_m" : "y_" + p));
            if (w.bias()) {
                m.floats(p + "_b", new long[] {w.n()}, floats(w.n(), r, 1))
                        .node("Add", p + "_add", List.of(p + "_b", p + "_m"), List.of("y_" + p));
            }
            if (declared) {
                m.output("y_" + p, FLOAT, 2, 3, w.n());
            } else {
                m.output("y_" + p);
            }
        }
        return m;
    }

    /** Runs a model with and without the fusions, checks the outputs are equal bit for bit, returns the groups. */
    private static List<String> compare(ModelBuilder model, float[] x, int k) {
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(x, 2, 3, k));
        Map<String, Tensor> fused;
        List<NodeAssignment> assignment;
        try (Session s = env.createSession(model.bytes(), new SessionOptions())) {
            fused = s.run(feeds);
            assignment = s.assignment();
        }
        try (Session s = env.createSession(model.bytes(), new SessionOptions()
                .config(SessionOptions.DISABLE_SPECIFIED_OPTIMIZERS, "CpuFusions"))) {
            for (Map.Entry<String, Tensor> e : s.run(feeds).entrySet()) {
                Tensor want = e.getValue();
                Tensor got = fused.get(e.getKey());
                if (want.type() == FLOAT) {
                    assertArrayEquals(want.floats(), got.floats(), e.getKey());
                } else {
                    assertArrayEquals(want.ints(), got.ints(), e.getKey());
                }
                assertArrayEquals(want.shape(), got.shape(), e.getKey());
            }
        }
        return fusedGroups(assignment);
    }

    @Test
    void attentionProjectionsShareOneQuantizationAndMatchTheNodesBitForBit() {
        List<Weight> qkv = List.of(new Weight("q", 24, ElementType.INT8, true, true),
                new Weight("k", 24, ElementType.INT8, true, true), new Weight("v", 17, ElementType.UINT8, false,
                        false));
        SplittableRandom r = new SplittableRandom(1);
        List<String> groups = List.of();
        for (int trial = 0; trial < 4; trial++) {
            groups = compare(model(40, qkv, trial, trial % 2 == 1), floats(2 * 3 * 40, r, 1 + trial * 3), 40);
        }
        assertEquals(List.of("DynamicQuantizeLinear+" + CHAIN + "+" + CHAIN + "+Mul+MatMulInteger+Cast+Mul"),
                groups);
    }

    @Test
    void aLongReductionIsExactAcrossItsBlocks() {
        // extreme weights and a reduction of 1300: three exact blocks whose int32 sum is cast once
        List<Weight> w = List.of(new Weight("out", 9, ElementType.INT8, true, true));
        float[] x = floats(2 * 3 * 1300, new SplittableRandom(2), 5);
        assertEquals(List.of("DynamicQuantizeLinear+" + CHAIN), compare(model(1300, w, 3, true), x, 1300));
    }

    @Test
    void constantAndInvalidInputsGiveWhatTheNodesGive() {
        List<Weight> w = List.of(new Weight("p", 8, ElementType.INT8, true, true));
        // all zero: scale 0, every product 0, the output the bias
        assertEquals(1, compare(model(16, w, 4, false), new float[2 * 3 * 16], 16).size());
        // one NaN: the scale is NaN, and so is every output
        float[] x = floats(2 * 3 * 16, new SplittableRandom(5), 1);
        x[7] = Float.NaN;
        assertEquals(1, compare(model(16, w, 4, false), x, 16).size());
        // an infinity: the scale is infinite and the levels 0
        x[7] = Float.POSITIVE_INFINITY;
        assertEquals(1, compare(model(16, w, 4, false), x, 16).size());
        // only negative or only positive values: the zero point at an end of its range
        float[] neg = floats(2 * 3 * 16, new SplittableRandom(6), 1);
        for (int i = 0; i < neg.length; i++) {
            neg[i] = -Math.abs(neg[i]);
        }
        assertEquals(1, compare(model(16, w, 4, false), neg, 16).size());
        for (int i = 0; i < neg.length; i++) {
            neg[i] = -neg[i];
        }
        assertEquals(1, compare(model(16, w, 4, false), neg, 16).size());
    }

    @Test
    void patternsThatDoNotQualifyStaySingleNodes() {
        List<Weight> w = List.of(new Weight("p", 8, ElementType.INT8, true, true));
        float[] x = floats(2 * 3 * 16, new SplittableRandom(7), 2);
        // the int32 product is also a graph output
        assertTrue(compare(model(16, w, 8, false).output("p_i", ElementType.INT32, 2, 3, 8), x, 16).isEmpty());
        // the levels are read by a node outside any chain
        ModelBuilder extraReader = model(16, w, 8, false)
                .node("Cast", "peek", List.of("xq"), List.of("xqf"), attr("to", 1))
                .output("xqf", FLOAT, 2, 3, 16);
        assertTrue(compare(extraReader, x, 16).isEmpty());
        // the weight's scale is not a constant: a graph input whose initializer is only its default
        assertTrue(compare(withOverridableScale(), x, 16).isEmpty());
        // the product is cast to another type than float
        ModelBuilder toDouble = TestModels.builder().opset(11)
                .input("x", FLOAT, 2, 3, 16)
                .initializer("w", bytes(ElementType.INT8, new long[] {16, 8}, new SplittableRandom(11), false))
                .node("DynamicQuantizeLinear", "quantize", List.of("x"), List.of("xq", "xs", "xz"))
                .node("MatMulInteger", "mm", List.of("xq", "w", "xz"), List.of("i"))
                .node("Cast", "cast", List.of("i"), List.of("y"), attr("to", 11))
                .output("y", ElementType.DOUBLE, 2, 3, 8)
                .output("xs", FLOAT);
        assertTrue(fusedGroupsOf(toDouble).isEmpty());
    }

    @Test
    void aBiasThatDoesNotBroadcastPerColumnStaysOutsideTheGroup() {
        SplittableRandom r = new SplittableRandom(9);
        ModelBuilder m = TestModels.builder().opset(11)
                .input("x", FLOAT, 2, 3, 16)
                .initializer("w", bytes(ElementType.INT8, new long[] {16, 8}, r, false))
                .initializer("wz", bytes(ElementType.INT8, new long[0], r, false))
                .floats("ws", new long[0], 0.01f)
                .floats("b", new long[] {3, 1}, floats(3, r, 1))
                .node("DynamicQuantizeLinear", "quantize", List.of("x"), List.of("xq", "xs", "xz"))
                .node("Mul", "scales", List.of("xs", "ws"), List.of("s"))
                .node("MatMulInteger", "mm", List.of("xq", "w", "xz", "wz"), List.of("i"))
                .node("Cast", "cast", List.of("i"), List.of("f"), attr("to", 1))
                .node("Mul", "mul", List.of("f", "s"), List.of("m"))
                .node("Add", "add", List.of("m", "b"), List.of("y"))
                .output("y", FLOAT, 2, 3, 8);
        assertEquals(List.of("DynamicQuantizeLinear+Mul+MatMulInteger+Cast+Mul"),
                compare(m, floats(2 * 3 * 16, r, 1), 16));
    }

    @Test
    void anInputOfTheWrongWidthFailsNamingTheNode() {
        // the input's shape is left open, so the mismatch shows only at run time: the fused kernel leaves it to the
        // nodes, and MatMulInteger reports it
        List<Weight> w = List.of(new Weight("p", 8, ElementType.INT8, true, true));
        ModelBuilder open = model(16, w, 12, false, false);
        try (Session s = env.createSession(open.bytes(), new SessionOptions())) {
            assertEquals(1, fusedGroups(s.assignment()).size());
            io.ortex.api.OrtexException e = org.junit.jupiter.api.Assertions.assertThrows(
                    io.ortex.api.OrtexException.class, () -> s.run(Map.of("x", Tensor.ofFloats(new float[30], 2,
                            15))));
            assertTrue(e.getMessage().contains("p_mm"), e.getMessage());
        }
    }

    private static List<String> fusedGroupsOf(ModelBuilder m) {
        try (Session s = env.createSession(m.bytes(), new SessionOptions())) {
            return fusedGroups(s.assignment());
        }
    }

    /** One chain whose weight scale is also a graph input, so that a caller may feed another. */
    private static ModelBuilder withOverridableScale() {
        SplittableRandom r = new SplittableRandom(10);
        return TestModels.builder().opset(11)
                .input("x", FLOAT, 2, 3, 16)
                .input("ws", FLOAT)
                .initializer("w", bytes(ElementType.INT8, new long[] {16, 8}, r, false))
                .initializer("wz", bytes(ElementType.INT8, new long[0], r, false))
                .floats("ws", new long[0], 0.01f)
                .node("DynamicQuantizeLinear", "quantize", List.of("x"), List.of("xq", "xs", "xz"))
                .node("Mul", "scales", List.of("xs", "ws"), List.of("s"))
                .node("MatMulInteger", "mm", List.of("xq", "w", "xz", "wz"), List.of("i"))
                .node("Cast", "cast", List.of("i"), List.of("f"), attr("to", 1))
                .node("Mul", "mul", List.of("f", "s"), List.of("y"))
                .output("y", FLOAT, 2, 3, 8);
    }
}
