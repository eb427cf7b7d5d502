package io.ortex.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.Environment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * If, Loop and Scan through the real runtime: the CPU EP's kernels run their subgraphs through the session's
 * compiled subgraph plans, and the outer-scope values the subgraphs read (graph inputs, initializers, values of
 * enclosing nodes, through two levels of nesting) reach them as the nodes' implicit inputs.
 */
class ControlFlowTest {
    private static Environment env;

    @BeforeAll
    static void environment() {
        env = Environment.create();
    }

    @AfterAll
    static void close() {
        env.close();
    }

    // ---- model building ----

    private static Onnx.NodeProto node(String op, List<String> in, List<String> out, Onnx.AttributeProto... attrs) {
        Onnx.NodeProto.Builder n = Onnx.NodeProto.newBuilder().setOpType(op).addAllInput(in).addAllOutput(out);
        for (Onnx.AttributeProto a : attrs) {
            n.addAttribute(a);
        }
        return n.build();
    }

    private static Onnx.AttributeProto graphAttr(String name, Onnx.GraphProto g) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.GRAPH)
                .setG(g).build();
    }

    private static Onnx.AttributeProto ints(String name, long... v) {
        Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long x : v) {
            a.addInts(x);
        }
        return a.build();
    }

    private static Onnx.AttributeProto intAttr(String name, long v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INT).setI(v)
                .build();
    }

    private static Onnx.ValueInfoProto value(String name, int type) {
        return Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder().setTensorType(
                Onnx.TypeProto.Tensor.newBuilder().setElemType(type))).build();
    }

    private static final int FLOAT = Onnx.TensorProto.DataType.FLOAT_VALUE;
    private static final int INT64 = Onnx.TensorProto.DataType.INT64_VALUE;
    private static final int BOOL = Onnx.TensorProto.DataType.BOOL_VALUE;

    private static Onnx.GraphProto.Builder graph(String name) {
        return Onnx.GraphProto.newBuilder().setName(name);
    }

    private static Map<String, Tensor> run(Onnx.GraphProto g, int opset, Map<String, Tensor> feeds) {
        Onnx.ModelProto m = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
        try (Session s = env.createSession(m.toByteArray(), new SessionOptions())) {
            return s.run(feeds);
        }
    }

    private static Tensor vec(float... v) {
        return Tensor.ofFloats(v, v.length);
    }

    private static Tensor bool(boolean b) {
        return Tensor.ofBooleans(new boolean[] {b});
    }

    // ---- If ----

    /** then: x + c (an initializer) + sq (a value computed in the main graph); else: x - c. */
    private static Onnx.GraphProto ifModel() {
        Onnx.GraphProto thenG = graph("then").addNode(node("Add", List.of("x", "c"), List.of("t1")))
                .addNode(node("Add", List.of("t1", "sq"), List.of("t2"))).addOutput(value("t2", FLOAT)).build();
        Onnx.GraphProto elseG = graph("else").addNode(node("Sub", List.of("x", "c"), List.of("e1")))
                .addOutput(value("e1", FLOAT)).build();
        return graph("main").addInput(value("cond", BOOL)).addInput(value("x", FLOAT))
                .addInitializer(TensorCodec.toProto(vec(10, 20), "c"))
                .addNode(node("Mul", List.of("x", "x"), List.of("sq")))
                .addNode(node("If", List.of("cond"), List.of("y"), graphAttr("then_branch", thenG),
                        graphAttr("else_branch", elseG)))
                .addOutput(value("y", FLOAT)).build();
    }

    @Test
    void ifRunsTheBranchTheConditionPicksWithOuterScopeValues() {
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        feeds.put("cond", bool(true));
        feeds.put("x", vec(1, 2));
        assertArrayEquals(new float[] {12, 26}, run(ifModel(), 13, feeds).get("y").floats());
        feeds.put("cond", bool(false));
        assertArrayEquals(new float[] {-9, -18}, run(ifModel(), 13, feeds).get("y").floats());
    }

    // ---- Loop ----

    /**
     * Loop body: acc' = acc + inc (inc a main-graph input), grow' = Concat(grow, x) (its shape changes each
     * iteration), scan output acc'; cond' = iter < limit (an initializer of the main graph).
     */
    private static Onnx.GraphProto loopModel(boolean withM, boolean withCond) {
        Onnx.GraphProto body = graph("body").addInput(value("iter", INT64)).addInput(value("cond_in", BOOL))
                .addInput(value("acc", FLOAT)).addInput(value("grow", FLOAT))
                .addNode(node("Add", List.of("acc", "inc"), List.of("acc2")))
                .addNode(node("Concat", List.of("grow", "x"), List.of("grow2"), intAttr("axis", 0)))
                .addNode(node("Less", List.of("iter", "limit"), List.of("cond_out")))
                .addNode(node("Identity", List.of("acc2"), List.of("scan")))
                .addOutput(value("cond_out", BOOL)).addOutput(value("acc2", FLOAT)).addOutput(value("grow2", FLOAT))
                .addOutput(value("scan", FLOAT)).build();
        Onnx.GraphProto.Builder main = graph("main").addInput(value("inc", FLOAT)).addInput(value("x", FLOAT))
                .addInput(value("acc0", FLOAT))
                .addInitializer(TensorCodec.toProto(Tensor.ofLongs(new long[] {2}), "limit"))
                .addInitializer(TensorCodec.toProto(Tensor.ofLongs(new long[] {5}), "m"))
                .addInitializer(TensorCodec.toProto(bool(true), "go"))
                .addInitializer(TensorCodec.toProto(Tensor.ofFloats(new float[0], 0), "empty"));
        main.addNode(node("Loop", List.of(withM ? "m" : "", withCond ? "go" : "", "acc0", "empty"),
                List.of("acc_final", "grow_final", "scans"), graphAttr("body", body)));
        return main.addOutput(value("acc_final", FLOAT)).addOutput(value("grow_final", FLOAT))
                .addOutput(value("scans", FLOAT)).build();
    }

    private static Map<String, Tensor> loopFeeds() {
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        feeds.put("inc", vec(1, 10));
        feeds.put("x", vec(7));
        feeds.put("acc0", vec(0, 0));
        return feeds;
    }

    @Test
    void loopStopsWhenTheBodyConditionTurnsFalse() {
        // iterations 0, 1, 2 run; after iteration 2 the body says 2 < 2 is false
        Map<String, Tensor> out = run(loopModel(true, true), 13, loopFeeds());
        assertArrayEquals(new float[] {3, 30}, out.get("acc_final").floats());
        assertArrayEquals(new float[] {7, 7, 7}, out.get("grow_final").floats());
        assertArrayEquals(new long[] {3, 2}, out.get("scans").shape());
        assertArrayEquals(new float[] {1, 10, 2, 20, 3, 30}, out.get("scans").floats());
        // a while loop (no M) stops the same way
        assertArrayEquals(new float[] {3, 30}, run(loopModel(false, true), 11, loopFeeds()).get("acc_final")
                .floats());
    }

    @Test
    void loopWithoutConditionRunsTheTripCountAndIgnoresTheBodyCondition() {
        Map<String, Tensor> out = run(loopModel(true, false), 13, loopFeeds());
        assertArrayEquals(new float[] {5, 50}, out.get("acc_final").floats());
        assertArrayEquals(new long[] {5}, out.get("grow_final").shape());
        assertArrayEquals(new long[] {5, 2}, out.get("scans").shape());
    }

    @Test
    void loopWithZeroTripsReturnsTheInitialValuesAndEmptyScans() {
        Onnx.GraphProto g = loopModel(true, true).toBuilder()
                .setInitializer(1, TensorCodec.toProto(Tensor.ofLongs(new long[] {0}), "m")).build();
        Map<String, Tensor> out = run(g, 13, loopFeeds());
        assertArrayEquals(new float[] {0, 0}, out.get("acc_final").floats());
        assertEquals(0, out.get("scans").size());
        assertEquals(0, out.get("scans").dim(0));
    }

    @Test
    void ifNestedInALoopReadsValuesFromTwoScopesUp() {
        // body: if (iter < limit) then acc + inc else acc - inc; inc and limit belong to the main graph
        Onnx.GraphProto thenG = graph("then").addNode(node("Add", List.of("acc", "inc"), List.of("a1")))
                .addOutput(value("a1", FLOAT)).build();
        Onnx.GraphProto elseG = graph("else").addNode(node("Sub", List.of("acc", "inc"), List.of("a2")))
                .addOutput(value("a2", FLOAT)).build();
        Onnx.GraphProto body = graph("body").addInput(value("iter", INT64)).addInput(value("cond_in", BOOL))
                .addInput(value("acc", FLOAT))
                .addNode(node("Less", List.of("iter", "limit"), List.of("small")))
                .addNode(node("If", List.of("small"), List.of("acc2"), graphAttr("then_branch", thenG),
                        graphAttr("else_branch", elseG)))
                .addNode(node("Identity", List.of("cond_in"), List.of("cond_out")))
                .addOutput(value("cond_out", BOOL)).addOutput(value("acc2", FLOAT)).build();
        Onnx.GraphProto main = graph("main").addInput(value("inc", FLOAT)).addInput(value("acc0", FLOAT))
                .addInitializer(TensorCodec.toProto(Tensor.ofLongs(new long[] {2}), "limit"))
                .addInitializer(TensorCodec.toProto(Tensor.ofLongs(new long[] {5}), "m"))
                .addNode(node("Loop", List.of("m", "", "acc0"), List.of("acc_final"), graphAttr("body", body)))
                .addOutput(value("acc_final", FLOAT)).build();
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        feeds.put("inc", vec(1));
        feeds.put("acc0", vec(100));
        // +1 twice, then -1 three times
        assertArrayEquals(new float[] {99}, run(main, 13, feeds).get("acc_final").floats());
    }

    // ---- Scan ----

    /** A running sum over the scan input plus an outer bias; scan output the running sums. */
    private static Onnx.GraphProto scanModel(Onnx.AttributeProto... extra) {
        Onnx.GraphProto body = graph("body").addInput(value("sum", FLOAT)).addInput(value("xi", FLOAT))
                .addNode(node("Add", List.of("sum", "xi"), List.of("s1")))
                .addNode(node("Add", List.of("s1", "bias"), List.of("sum2")))
                .addNode(node("Identity", List.of("sum2"), List.of("out")))
                .addOutput(value("sum2", FLOAT)).addOutput(value("out", FLOAT)).build();
        Onnx.AttributeProto[] attrs = new Onnx.AttributeProto[extra.length + 2];
        attrs[0] = graphAttr("body", body);
        attrs[1] = intAttr("num_scan_inputs", 1);
        System.arraycopy(extra, 0, attrs, 2, extra.length);
        return graph("main").addInput(value("init", FLOAT)).addInput(value("xs", FLOAT))
                .addInitializer(TensorCodec.toProto(vec(0.5f, 0.5f), "bias"))
                .addNode(node("Scan", List.of("init", "xs"), List.of("final", "sums"), attrs))
                .addOutput(value("final", FLOAT)).addOutput(value("sums", FLOAT)).build();
    }

    private static Map<String, Tensor> scanFeeds() {
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        feeds.put("init", vec(0, 0));
        // three steps of 2 values along axis 0: [[1, 2], [3, 4], [5, 6]]
        feeds.put("xs", Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 3, 2));
        return feeds;
    }

    @Test
    void scanRunsTheBodyOverSlicesWithStateAndOuterValues() {
        Map<String, Tensor> out = run(scanModel(), 11, scanFeeds());
        assertArrayEquals(new float[] {10.5f, 13.5f}, out.get("final").floats());
        assertArrayEquals(new long[] {3, 2}, out.get("sums").shape());
        assertArrayEquals(new float[] {1.5f, 2.5f, 5, 7, 10.5f, 13.5f}, out.get("sums").floats());
    }

    @Test
    void scanHonoursAxesAndDirections() {
        // scan along axis 1 (negative -1) of the transposed input, backwards, stacking outputs on axis 1 reversed
        Map<String, Tensor> feeds = scanFeeds();
        feeds.put("xs", Tensor.ofFloats(new float[] {1, 3, 5, 2, 4, 6}, 2, 3));
        Map<String, Tensor> out = run(scanModel(ints("scan_input_axes", -1), ints("scan_input_directions", 1),
                ints("scan_output_axes", 1), ints("scan_output_directions", 1)), 11, feeds);
        // backwards: 5.5, 6.5 / 9, 11 / 10.5, 13.5; written reversed along axis 1
        assertArrayEquals(new float[] {10.5f, 13.5f}, out.get("final").floats());
        assertArrayEquals(new long[] {2, 3}, out.get("sums").shape());
        assertArrayEquals(new float[] {10.5f, 9, 5.5f, 13.5f, 11, 6.5f}, out.get("sums").floats());
    }

    @Test
    void scanOpset8HasABatchAxisAndSequenceLengths() {
        Onnx.GraphProto g = scanModel();
        Onnx.NodeProto scan = g.getNode(0).toBuilder().clearInput().addInput("lens").addInput("init").addInput("xs")
                .build();
        Onnx.GraphProto g8 = g.toBuilder().setNode(0, scan).addInput(value("lens", INT64)).build();
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        feeds.put("init", Tensor.ofFloats(new float[] {0, 0, 100, 100}, 2, 2));
        float[] x = {1, 2, 3, 4, 5, 6, 1, 1, 1, 1, 1, 1};
        feeds.put("xs", Tensor.ofFloats(x, 2, 3, 2));
        feeds.put("lens", Tensor.ofLongs(new long[] {3, 1}, 2));
        Map<String, Tensor> out = run(g8, 8, feeds);
        assertArrayEquals(new float[] {10.5f, 13.5f, 101.5f, 101.5f}, out.get("final").floats());
        assertArrayEquals(new long[] {2, 3, 2}, out.get("sums").shape());
        assertArrayEquals(new float[] {1.5f, 2.5f, 5, 7, 10.5f, 13.5f, 101.5f, 101.5f, 0, 0, 0, 0},
                out.get("sums").floats());
    }

    @Test
    void ifWithoutAnElementInTheConditionFailsNamingTheInput() {
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        feeds.put("cond", Tensor.ofBooleans(new boolean[0], 0));
        feeds.put("x", vec(1, 2));
        OrtexException e = assertThrows(OrtexException.class, () -> run(ifModel(), 13, feeds));
        assertEquals(true, e.getMessage().contains("'cond'"), e.getMessage());
    }
}
