package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.FusedGroups.fusedGroups;
import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fusion of the QDQ pattern around Conv and MatMul ({@code DequantizeLinear} of the input, the weights and the
 * bias, the float op, {@code QuantizeLinear}), through the real runtime: the fused group equals the same product as
 * one QLinearConv or QLinearMatMul node bit for bit, and the unfused nodes ({@code CpuFusions} disabled) within one
 * quantization level, on all but a few elements; patterns that do not qualify stay single nodes.
 */
class QdqFusionTest {
    private static final ElementType U8 = ElementType.UINT8;
    private static final ElementType I8 = ElementType.INT8;
    private static final String CONV_GROUP = "DequantizeLinear+DequantizeLinear+DequantizeLinear+Conv+QuantizeLinear";
    private static final String MATMUL_GROUP = "DequantizeLinear+DequantizeLinear+MatMul+QuantizeLinear";
    private static final float MATMUL_CLIP_MIN = -1.3f;
    private static final float MATMUL_CLIP_MAX = 2.2f;
    private static Environment env;

    @BeforeAll
    static void open() {
        env = Environment.create();
    }

    @AfterAll
    static void close() {
        env.close();
    }

    private static Tensor bytes(ElementType type, long[] shape, SplittableRandom r) {
        byte[] v = new byte[Tensor.checkedElementCount(shape)];
        int lo = type == U8 ? 0 : -128;
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (lo + r.nextInt(256));
        }
        return Tensor.of(type, shape, v);
    }

    private static Tensor scalar(ElementType type, int value) {
        return Tensor.of(type, new long[0], new byte[] {(byte) value});
    }

    /** A quantized convolution's operands and the ways a model may deviate from the pattern. */
    private static final class ConvSpec {
        int c = 6;
        int m = 8;
        int group = 1;
        int h = 9;
        int w = 11;
        boolean perChannel = true;
        boolean bias = true;
        float biasScaleFactor = 1f;
        boolean weightsFed;
        boolean productIsOutput;
        boolean inputPerChannel;
        int weightAxis = 0;
        long seed = 1;
        /** Relu or Clip between the Conv and QuantizeLinear, or {@code null}. */
        String activation;
        float clipMin = -0.4f;
        float clipMax = 3.1f;

        float xScale = 0.023f;
        float yScale = 0.11f;

        float[] weightScales() {
            SplittableRandom r = new SplittableRandom(seed + 100);
            float[] ws = new float[perChannel ? m : 1];
            for (int i = 0; i < ws.length; i++) {
                ws[i] = 0.001f + r.nextFloat() * 0.01f;
            }
            return ws;
        }

        Tensor weights() {
            return bytes(I8, new long[] {m, c / group, 3, 3}, new SplittableRandom(seed));
        }

        int[] biasValues() {
            SplittableRandom r = new SplittableRandom(seed + 200);
            int[] b = new int[m];
            for (int i = 0; i < m; i++) {
                b[i] = r.nextInt(4001) - 2000;
            }
            return b;
        }

        /** The QDQ model. */
        ModelBuilder qdq() {
            float[] ws = weightScales();
            long[] scaleShape = perChannel ? new long[] {m} : new long[0];
            ModelBuilder b = TestModels.builder().opset(13).input("xq", U8, 1, c, h, w)
                    .floats("xs", inputPerChannel ? new long[] {c} : new long[0], inputPerChannel ? channels(c)
                            : new float[] {xScale})
                    .initializer("xz", inputPerChannel ? Tensor.of(U8, new long[] {c}, new byte[c])
                            : scalar(U8, 131))
                    .floats("ws", scaleShape, ws)
                    .initializer("wz", perChannel ? Tensor.of(I8, new long[] {m}, new byte[m]) : scalar(I8, 0))
                    .floats("ys", new long[0], yScale)
                    .initializer("yz", scalar(U8, 120));
            if (weightsFed) {
                b.input("wq", I8, m, c / group, 3, 3);
            } else {
                b.initializer("wq", weights());
            }
            b.node("DequantizeLinear", "dq_x", List.of("xq", "xs", "xz"), List.of("xf"), attr("axis", 1))
                    .node("DequantizeLinear", "dq_w", List.of("wq", "ws", "wz"), List.of("wf"),
                            attr("axis", weightAxis));
            List<String> convInputs = new ArrayList<>(List.of("xf", "wf"));
            if (bias) {
                float[] bs = new float[ws.length];
                for (int i = 0; i < bs.length; i++) {
                    bs[i] = xScale * ws[i] * biasScaleFactor;
                }
                b.initializer("bq", Tensor.ofInts(biasValues(), m)).floats("bs", scaleShape, bs)
                        .node("DequantizeLinear", "dq_b", List.of("bq", "bs"), List.of("bf"), attr("axis", 0));
                convInputs.add("bf");
            }
            b.node("Conv", "conv", convInputs, List.of("yf"), ints("pads", 1, 1, 1, 1), ints("strides", 1, 2),
                    attr("group", group));
            String quantized = activation(b, activation, "yf", clipMin, clipMax);
            b.node("QuantizeLinear", "q_y", List.of(quantized, "ys", "yz"), List.of("yq"))
                    .output("yq", U8);
            if (productIsOutput) {
                b.output("yf", ElementType.FLOAT);
            }
            return b;
        }

        /** The same product as one QLinearConv node. */
        ModelBuilder qlinear() {
            ModelBuilder b = TestModels.builder().opset(13).input("xq", U8, 1, c, h, w)
                    .floats("xs", new long[0], xScale).initializer("xz", scalar(U8, 131))
                    .initializer("wq", weights())
                    .floats("ws", perChannel ? new long[] {m} : new long[0], weightScales())
                    .initializer("wz", perChannel ? Tensor.of(I8, new long[] {m}, new byte[m]) : scalar(I8, 0))
                    .floats("ys", new long[0], yScale).initializer("yz", scalar(U8, 120));
            List<String> in = new ArrayList<>(List.of("xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz"));
            if (bias) {
                b.initializer("bq", Tensor.ofInts(biasValues(), m));
                in.add("bq");
            }
            return b.node("QLinearConv", "qconv", in, List.of("yq"), ints("pads", 1, 1, 1, 1), ints("strides", 1, 2),
                    attr("group", group)).output("yq", U8);
        }

        Map<String, Tensor> feeds() {
            Tensor x = bytes(U8, new long[] {1, c, h, w}, new SplittableRandom(seed + 300));
            return weightsFed ? Map.of("xq", x, "wq", weights()) : Map.of("xq", x);
        }
    }

    /** Adds {@code activation} (Relu, or Clip to constant bounds) after {@code input}; returns what to quantize. */
    private static String activation(ModelBuilder b, String activation, String input, float lo, float hi) {
        if (activation == null) {
            return input;
        }
        if (activation.equals("Relu")) {
            b.node("Relu", "act", List.of(input), List.of("ya"));
        } else {
            b.floats("clip_min", new long[0], lo).floats("clip_max", new long[0], hi)
                    .node("Clip", "act", List.of(input, "clip_min", "clip_max"), List.of("ya"));
        }
        return "ya";
    }

    /**
     * What the activation does to the quantized levels of uint8 {@code y}: QuantizeLinear of its bounds, computed
     * here as the ONNX specification defines it.
     */
    private static byte[] clampLevels(byte[] y, String activation, float lo, float hi, float scale, int zero) {
        if (activation == null) {
            return y;
        }
        int low = activation.equals("Relu") ? zero : quantize(lo, scale, zero);
        int high = activation.equals("Relu") ? 255 : quantize(hi, scale, zero);
        byte[] out = new byte[y.length];
        for (int i = 0; i < y.length; i++) {
            out[i] = (byte) Math.max(low, Math.min(high, y[i] & 0xff));
        }
        return out;
    }

    private static int quantize(float x, float scale, int zero) {
        return (int) Math.max(0, Math.min(255, Math.rint(x / scale) + zero));
    }

    private static float[] channels(int c) {
        float[] v = new float[c];
        java.util.Arrays.fill(v, 0.02f);
        return v;
    }

    /** A model's output and fused groups, with or without the fusions. */
    private record Result(byte[] y, List<String> groups) {
    }

    private static Result run(ModelBuilder model, Map<String, Tensor> feeds, boolean fusions) {
        SessionOptions options = new SessionOptions();
        if (!fusions) {
            options.config(SessionOptions.DISABLE_SPECIFIED_OPTIMIZERS, "CpuFusions");
        }
        try (Session s = env.createSession(model.bytes(), options)) {
            return new Result((byte[]) s.run(feeds).get("yq").data(), fusedGroups(s.assignment()));
        }
    }

    /** Checks the fused output against the unfused nodes: at most one level apart, and rarely apart at all. */
    private static void closeToUnfused(byte[] fused, byte[] unfused, boolean signed) {
        int differ = 0;
        for (int i = 0; i < fused.length; i++) {
            int a = signed ? fused[i] : fused[i] & 0xff;
            int b = signed ? unfused[i] : unfused[i] & 0xff;
            assertTrue(Math.abs(a - b) <= 1, "element " + i + ": fused " + a + ", nodes " + b);
            differ += a != b ? 1 : 0;
        }
        assertTrue(differ * 100 <= fused.length, differ + " of " + fused.length + " elements differ");
    }

    @Test
    void convGroupsEqualQLinearConvAndStayWithinALevelOfTheNodes() {
        for (int trial = 0; trial < 4; trial++) {
            ConvSpec spec = new ConvSpec();
            spec.seed = trial;
            spec.perChannel = trial % 2 == 0;
            spec.bias = trial != 3;
            spec.group = trial == 2 ? 2 : 1;
            if (trial == 1) {
                // depthwise
                spec.group = 6;
                spec.m = 6;
            }
            Map<String, Tensor> feeds = spec.feeds();
            Result fused = run(spec.qdq(), feeds, true);
            assertEquals(List.of(spec.bias ? CONV_GROUP : CONV_GROUP.replaceFirst("DequantizeLinear\\+", "")),
                    fused.groups(), "trial " + trial);
            Result nodes = run(spec.qdq(), feeds, false);
            assertTrue(nodes.groups().isEmpty());
            Result qlinear = run(spec.qlinear(), feeds, true);
            assertArrayEquals(qlinear.y(), fused.y(), "trial " + trial);
            closeToUnfused(fused.y(), nodes.y(), false);
        }
    }

    @Test
    void convPatternsThatDoNotQualifyStaySingleNodes() {
        ConvSpec fed = new ConvSpec();
        fed.weightsFed = true;
        assertDeclined(fed, "weights fed at run time");
        ConvSpec mismatched = new ConvSpec();
        mismatched.biasScaleFactor = 1.5f;
        assertDeclined(mismatched, "a bias scale other than x_scale * w_scale");
        ConvSpec output = new ConvSpec();
        output.productIsOutput = true;
        assertDeclined(output, "the float product is a graph output");
        ConvSpec inputPerChannel = new ConvSpec();
        inputPerChannel.inputPerChannel = true;
        assertDeclined(inputPerChannel, "an input quantized per channel");
        ConvSpec wrongAxis = new ConvSpec();
        wrongAxis.c = 8;
        wrongAxis.weightAxis = 1;
        wrongAxis.bias = false;
        assertDeclined(wrongAxis, "weights quantized per input channel");
    }

    private static void assertDeclined(ConvSpec spec, String what) {
        Map<String, Tensor> feeds = spec.feeds();
        Result fused = run(spec.qdq(), feeds, true);
        assertTrue(fused.groups().isEmpty(), what + ": " + fused.groups());
        assertArrayEquals(run(spec.qdq(), feeds, false).y(), fused.y(), what);
    }

    /** {@code a[2, 5, k]} uint8 times constant int8 {@code b[k, n]} in QDQ form, or as one QLinearMatMul node. */
    private static ModelBuilder matMul(int k, int n, boolean perColumn, int axis, boolean qlinear, long seed) {
        return matMul(k, n, perColumn, axis, qlinear, seed, null);
    }

    private static ModelBuilder matMul(int k, int n, boolean perColumn, int axis, boolean qlinear, long seed,
                                       String activation) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] bs = new float[perColumn ? n : 1];
        for (int i = 0; i < bs.length; i++) {
            bs[i] = 0.002f + r.nextFloat() * 0.01f;
        }
        long[] scaleShape = perColumn ? new long[] {n} : new long[0];
        ModelBuilder m = TestModels.builder().opset(13).input("xq", U8, 2, 5, k)
                .floats("xs", new long[0], 0.031f).initializer("xz", scalar(U8, 125))
                .initializer("wq", bytes(I8, new long[] {k, n}, r))
                .floats("ws", scaleShape, bs)
                .initializer("wz", perColumn ? Tensor.of(I8, new long[] {n}, new byte[n]) : scalar(I8, 3))
                .floats("ys", new long[0], 0.17f).initializer("yz", scalar(U8, 127));
        if (qlinear) {
            return m.node("QLinearMatMul", "qmm", List.of("xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz"),
                    List.of("yq")).output("yq", U8);
        }
        m.node("DequantizeLinear", "dq_x", List.of("xq", "xs", "xz"), List.of("xf"))
                .node("DequantizeLinear", "dq_w", List.of("wq", "ws", "wz"), List.of("wf"), attr("axis", axis))
                .node("MatMul", "mm", List.of("xf", "wf"), List.of("yf"));
        String quantized = activation(m, activation, "yf", MATMUL_CLIP_MIN, MATMUL_CLIP_MAX);
        return m.node("QuantizeLinear", "q_y", List.of(quantized, "ys", "yz"), List.of("yq")).output("yq", U8);
    }


    @Test
    void matMulGroupsEqualQLinearMatMulAndStayWithinALevelOfTheNodes() {
        for (int trial = 0; trial < 4; trial++) {
            boolean perColumn = trial % 2 == 0;
            // a reduction long enough for several exact blocks in the last trials
            int k = trial < 2 ? 40 : 1500;
            Map<String, Tensor> feeds = Map.of("xq", bytes(U8, new long[] {2, 5, k}, new SplittableRandom(trial)));
            Result fused = run(matMul(k, 24, perColumn, 1, false, trial), feeds, true);
            assertEquals(List.of(MATMUL_GROUP), fused.groups(), "trial " + trial);
            Result qlinear = run(matMul(k, 24, perColumn, 1, true, trial), feeds, true);
            assertArrayEquals(qlinear.y(), fused.y(), "trial " + trial);
            closeToUnfused(fused.y(), run(matMul(k, 24, perColumn, 1, false, trial), feeds, false).y(), false);
        }
    }

    @Test
    void aReluOrClipBeforeQuantizeLinearJoinsTheGroupAndClampsTheLevels() {
        for (String activation : List.of("Relu", "Clip")) {
            for (int trial = 0; trial < 2; trial++) {
                ConvSpec spec = new ConvSpec();
                spec.seed = 10 + trial;
                spec.activation = activation;
                spec.group = trial == 1 ? 6 : 1;
                spec.m = trial == 1 ? 6 : spec.m;
                Map<String, Tensor> feeds = spec.feeds();
                Result fused = run(spec.qdq(), feeds, true);
                String what = activation + ", trial " + trial;
                assertEquals(List.of(CONV_GROUP.replace("Conv+", "Conv+" + activation + "+")), fused.groups(), what);
                byte[] want = clampLevels(run(spec.qlinear(), feeds, true).y(), activation, spec.clipMin,
                        spec.clipMax, spec.yScale, 120);
                assertArrayEquals(want, fused.y(), what);
                Result nodes = run(spec.qdq(), feeds, false);
                assertTrue(nodes.groups().isEmpty());
                closeToUnfused(fused.y(), nodes.y(), false);
            }
            Map<String, Tensor> feeds = Map.of("xq", bytes(U8, new long[] {2, 5, 300}, new SplittableRandom(5)));
            Result fused = run(matMul(300, 24, true, 1, false, 5, activation), feeds, true);
            assertEquals(List.of(MATMUL_GROUP.replace("MatMul+", "MatMul+" + activation + "+")), fused.groups());
            byte[] want = clampLevels(run(matMul(300, 24, true, 1, true, 5), feeds, true).y(), activation,
                    MATMUL_CLIP_MIN, MATMUL_CLIP_MAX, 0.17f, 127);
            assertArrayEquals(want, fused.y(), activation);
            closeToUnfused(fused.y(), run(matMul(300, 24, true, 1, false, 5, activation), feeds, false).y(), false);
        }
    }

    @Test
    void aClipWhoseMinimumPassesItsMaximumStaysOutsideTheGroup() {
        ConvSpec spec = new ConvSpec();
        spec.activation = "Clip";
        spec.clipMin = 2f;
        spec.clipMax = 1f;
        assertDeclined(spec, "a Clip with min above max");
    }

    /** A quantized Gemm {@code x[rows, k] x w (+ bias)}: its operands, the QDQ model and the exact reference. */
    private static final class GemmSpec {
        final int rows = 7;
        final int k = 260;
        final int n = 19;
        final float xScale = 0.027f;
        final float yScale = 0.21f;
        final int xZero = 121;
        final int yZero = 118;
        boolean transB;
        boolean bias = true;
        float alpha = 1f;
        long seed;

        float[] weightScales() {
            SplittableRandom r = new SplittableRandom(seed + 7);
            float[] ws = new float[n];
            for (int i = 0; i < n; i++) {
                ws[i] = 0.002f + r.nextFloat() * 0.01f;
            }
            return ws;
        }

        /** The weights as {@code [k, n]} int8 values. */
        byte[] weights() {
            return (byte[]) bytes(I8, new long[] {k, n}, new SplittableRandom(seed + 1)).data();
        }

        int[] biasValues() {
            SplittableRandom r = new SplittableRandom(seed + 2);
            int[] b = new int[n];
            for (int i = 0; i < n; i++) {
                b[i] = r.nextInt(60001) - 30000;
            }
            return b;
        }

        Tensor input() {
            return bytes(U8, new long[] {rows, k}, new SplittableRandom(seed + 3));
        }

        ModelBuilder qdq() {
            byte[] w = weights();
            byte[] stored = w;
            if (transB) {
                stored = new byte[w.length];
                for (int r = 0; r < k; r++) {
                    for (int c = 0; c < n; c++) {
                        stored[c * k + r] = w[r * n + c];
                    }
                }
            }
            float[] ws = weightScales();
            ModelBuilder b = TestModels.builder().opset(13).input("xq", U8, rows, k)
                    .floats("xs", new long[0], xScale).initializer("xz", scalar(U8, xZero))
                    .initializer("wq", Tensor.of(I8, transB ? new long[] {n, k} : new long[] {k, n}, stored))
                    .floats("ws", new long[] {n}, ws)
                    .initializer("wz", Tensor.of(I8, new long[] {n}, new byte[n]))
                    .floats("ys", new long[0], yScale).initializer("yz", scalar(U8, yZero))
                    .node("DequantizeLinear", "dq_x", List.of("xq", "xs", "xz"), List.of("xf"))
                    .node("DequantizeLinear", "dq_w", List.of("wq", "ws", "wz"), List.of("wf"),
                            attr("axis", transB ? 0 : 1));
            List<String> in = new ArrayList<>(List.of("xf", "wf"));
            if (bias) {
                float[] bs = new float[n];
                for (int i = 0; i < n; i++) {
                    bs[i] = xScale * ws[i];
                }
                b.initializer("bq", Tensor.ofInts(biasValues(), n)).floats("bs", new long[] {n}, bs)
                        .node("DequantizeLinear", "dq_b", List.of("bq", "bs"), List.of("bf"), attr("axis", 0));
                in.add("bf");
            }
            return b.node("Gemm", "gemm", in, List.of("yf"), attr("transB", transB ? 1 : 0),
                            attr("alpha", alpha))
                    .node("QuantizeLinear", "q_y", List.of("yf", "ys", "yz"), List.of("yq"))
                    .output("yq", U8);
        }

        /**
         * The exact integer product plus bias, requantized as QLinearMatMul defines it with float32 scales:
         * {@code saturate(round(float(acc) * (x_scale * w_scale / y_scale)) + y_zero)}.
         */
        byte[] reference(Tensor x) {
            byte[] xv = (byte[]) x.data();
            byte[] w = weights();
            float[] ws = weightScales();
            int[] bv = bias ? biasValues() : new int[n];
            byte[] y = new byte[rows * n];
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < n; c++) {
                    int acc = bv[c];
                    for (int i = 0; i < k; i++) {
                        acc += ((xv[r * k + i] & 0xff) - xZero) * w[i * n + c];
                    }
                    float m = xScale * ws[c] / yScale;
                    double v = Math.rint((float) acc * m) + yZero;
                    y[r * n + c] = (byte) (int) Math.max(0, Math.min(255, v));
                }
            }
            return y;
        }
    }

    @Test
    void gemmGroupsEqualTheExactProductAndStayWithinALevelOfTheNodes() {
        String group = "DequantizeLinear+DequantizeLinear+DequantizeLinear+Gemm+QuantizeLinear";
        for (int trial = 0; trial < 3; trial++) {
            GemmSpec spec = new GemmSpec();
            spec.seed = 40 + trial;
            spec.transB = trial != 1;
            spec.bias = trial != 2;
            Tensor x = spec.input();
            Map<String, Tensor> feeds = Map.of("xq", x);
            Result fused = run(spec.qdq(), feeds, true);
            assertEquals(List.of(spec.bias ? group : group.replaceFirst("DequantizeLinear\\+", "")),
                    fused.groups(), "trial " + trial);
            assertArrayEquals(spec.reference(x), fused.y(), "trial " + trial);
            Result nodes = run(spec.qdq(), feeds, false);
            assertTrue(nodes.groups().isEmpty());
            closeToUnfused(fused.y(), nodes.y(), false);
        }
        GemmSpec scaled = new GemmSpec();
        scaled.alpha = 0.5f;
        Map<String, Tensor> feeds = Map.of("xq", scaled.input());
        Result declined = run(scaled.qdq(), feeds, true);
        assertTrue(declined.groups().isEmpty(), "alpha 0.5: " + declined.groups());
        assertArrayEquals(run(scaled.qdq(), feeds, false).y(), declined.y());
    }

    @Test
    void aMatMulWeightQuantizedPerRowStaysSingleNodes() {
        // per-axis along the reduction: the scales do not factor out of the integer product
        Map<String, Tensor> feeds = Map.of("xq", bytes(U8, new long[] {2, 5, 24}, new SplittableRandom(9)));
        Result fused = run(matMul(24, 24, true, 0, false, 9), feeds, true);
        assertTrue(fused.groups().isEmpty(), fused.groups().toString());
    }

    @Test
    void oneSessionServesManyThreadsAtOnce() throws Exception {
        ConvSpec spec = new ConvSpec();
        spec.c = 16;
        spec.m = 16;
        spec.h = 24;
        spec.w = 24;
        try (Session s = env.createSession(spec.qdq().bytes(), new SessionOptions())) {
            List<Map<String, Tensor>> feeds = new ArrayList<>();
            List<byte[]> want = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                spec.seed = i;
                feeds.add(Map.of("xq", spec.feeds().get("xq")));
                want.add(((byte[]) s.run(feeds.get(i)).get("yq").data()).clone());
            }
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int first = t;
                    done.add(pool.submit(() -> {
                        for (int run = 0; run < 20; run++) {
                            int i = (first + run) % 4;
                            assertArrayEquals(want.get(i), (byte[]) s.run(feeds.get(i)).get("yq").data(),
                                    "thread " + first + ", run " + run);
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
