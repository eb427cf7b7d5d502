package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad inputs given through the API, as the command line gives them: wrong type, rank or dimensions, missing, null or
 * unknown inputs, NaN where a count or index is expected, out-of-range indices. Each fails its run with an error that
 * names the input or the node, quickly, and the session then runs good inputs as before.
 */
class RunInputsTest {

    private RuntimeEnvironment env;

    @BeforeEach
    void setUp() {
        env = new RuntimeEnvironment(Map.of(), List.of(CPU), List.of(new CpuEpFactory()));
    }

    @AfterEach
    void tearDown() {
        env.close();
    }

    /** Runs bad feeds, expecting an error naming {@code culprit}, then good feeds, expecting {@code expected}. */
    private static void refusedThenUsable(Session s, Map<String, Tensor> bad, String culprit,
                                          Map<String, Tensor> good, String output, float[] expected) {
        OrtexException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(OrtexException.class, () -> s.run(bad)));
        assertTrue(e.getMessage().contains(culprit), "'" + culprit + "' not named: " + e.getMessage());
        assertFalse(e.getMessage().contains("Exception"), e.getMessage());
        assertArrayEquals(expected, s.run(good).get(output).floats(), "the session still runs");
    }

    @Test
    void wrongTypeRankDimsMissingNullAndUnknownInputsAreNamed() {
        try (Session s = env.createSession(TestModels.mul().bytes(), new SessionOptions())) {
            float[] ones = {1, 1, 1, 1, 1, 1};
            Map<String, Tensor> good = Map.of("x", Tensor.ofFloats(ones, 2, 3), "y", Tensor.ofFloats(ones, 2, 3));
            Map<String, Tensor> wrongType = new HashMap<>(good);
            wrongType.put("x", Tensor.ofLongs(new long[6], 2, 3));
            refusedThenUsable(s, wrongType, "'x'", good, "out", ones);
            Map<String, Tensor> wrongRank = new HashMap<>(good);
            wrongRank.put("y", Tensor.ofFloats(ones, 6));
            refusedThenUsable(s, wrongRank, "'y'", good, "out", ones);
            Map<String, Tensor> wrongDims = new HashMap<>(good);
            wrongDims.put("y", Tensor.ofFloats(ones, 3, 2));
            refusedThenUsable(s, wrongDims, "'y'", good, "out", ones);
            refusedThenUsable(s, Map.of("x", good.get("x")), "'y'", good, "out", ones);
            Map<String, Tensor> nullInput = new HashMap<>(good);
            nullInput.put("y", null);
            refusedThenUsable(s, nullInput, "'y'", good, "out", ones);
            Map<String, Tensor> unknown = new HashMap<>(good);
            unknown.put("z\nforged", Tensor.ofFloats(ones, 2, 3));
            refusedThenUsable(s, unknown, "'z\\nforged'", good, "out", ones);
        }
    }

    @Test
    void outOfRangeIndicesNameTheNode() {
        byte[] model = TestModels.builder()
                .input("data", TestModels.FLOAT, 3)
                .input("idx", TestModels.INT64, 2)
                .node("Gather", "pick", List.of("data", "idx"), List.of("out"))
                .output("out", TestModels.FLOAT, 2)
                .bytes();
        try (Session s = env.createSession(model, new SessionOptions())) {
            Tensor data = Tensor.ofFloats(new float[] {10, 20, 30}, 3);
            Map<String, Tensor> good = Map.of("data", data, "idx", Tensor.ofLongs(new long[] {2, -1}, 2));
            float[] expected = {30, 30};
            refusedThenUsable(s, Map.of("data", data, "idx", Tensor.ofLongs(new long[] {0, 3}, 2)), "'pick'",
                    good, "out", expected);
            refusedThenUsable(s, Map.of("data", data, "idx", Tensor.ofLongs(new long[] {Long.MIN_VALUE, 0}, 2)),
                    "'pick'", good, "out", expected);
        }
    }

    @Test
    void nanWhereACountIsExpectedNamesTheNode() {
        // Range(start, limit, delta) with float operands: NaN, an infinite or a zero step give no element count
        byte[] model = TestModels.builder()
                .input("start", TestModels.FLOAT)
                .input("limit", TestModels.FLOAT)
                .input("delta", TestModels.FLOAT)
                .node("Range", "steps", List.of("start", "limit", "delta"), List.of("out"))
                .output("out", TestModels.FLOAT, -1)
                .bytes();
        try (Session s = env.createSession(model, new SessionOptions())) {
            Map<String, Tensor> good = Map.of("start", scalar(0), "limit", scalar(3), "delta", scalar(1));
            float[] expected = {0, 1, 2};
            refusedThenUsable(s, Map.of("start", scalar(0), "limit", scalar(Float.NaN), "delta", scalar(1)),
                    "'steps'", good, "out", expected);
            refusedThenUsable(s, Map.of("start", scalar(0), "limit", scalar(Float.POSITIVE_INFINITY),
                    "delta", scalar(1)), "'steps'", good, "out", expected);
            refusedThenUsable(s, Map.of("start", scalar(0), "limit", scalar(3), "delta", scalar(0)),
                    "'steps'", good, "out", expected);
            refusedThenUsable(s, Map.of("start", scalar(0), "limit", scalar(3e12f), "delta", scalar(1)),
                    "'steps'", good, "out", expected);
        }
    }

    @Test
    void nanDepthOfOneHotNamesTheNode() {
        byte[] model = TestModels.builder()
                .input("indices", TestModels.INT64, 2)
                .input("depth", TestModels.FLOAT)
                .floats("values", new long[] {2}, new float[] {0, 1})
                .node("OneHot", "hot", List.of("indices", "depth", "values"), List.of("out"))
                .output("out", TestModels.FLOAT, 2, -1)
                .bytes();
        try (Session s = env.createSession(model, new SessionOptions())) {
            Tensor indices = Tensor.ofLongs(new long[] {0, 1}, 2);
            Map<String, Tensor> good = Map.of("indices", indices, "depth", scalar(2));
            float[] expected = {1, 0, 0, 1};
            refusedThenUsable(s, Map.of("indices", indices, "depth", scalar(Float.NaN)), "'hot'", good, "out",
                    expected);
            refusedThenUsable(s, Map.of("indices", indices, "depth", scalar(-4)), "'hot'", good, "out", expected);
            refusedThenUsable(s, Map.of("indices", indices, "depth", scalar(3e12f)), "'hot'", good, "out",
                    expected);
        }
    }

    private static Tensor scalar(float v) {
        return Tensor.ofFloats(new float[] {v});
    }
}
