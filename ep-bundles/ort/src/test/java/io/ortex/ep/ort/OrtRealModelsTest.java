package io.ortex.ep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.ortex.api.ElementType;
import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorComparison;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The five real models of the shared cache through the ONNX Runtime EP: every node on it, and every output equal to
 * ONNX Runtime's Java API run directly on the same inputs within 1e-5. all-MiniLM-L6-v2 comes from its Maven
 * artifact; the others are skipped, saying so, when {@code ../shared/models/fetch.sh} has not filled the cache.
 */
class OrtRealModelsTest {
    static final double TOLERANCE = 1e-5;

    private static Environment env;

    @BeforeAll
    static void environment() {
        env = Environment.create();
    }

    @AfterAll
    static void close() {
        env.close();
    }

    @Test
    void allMiniLm() throws Exception {
        check("all-MiniLM-L6-v2", Models.miniLm(), Models.miniLmInputs(7));
    }

    @Test
    void ppOcrDetector() throws Exception {
        check("PP-OCRv4 det", Files.readAllBytes(Models.cached("ppocr-v4-det")),
                Map.of("x", Models.randomTensor(11, 1, 3, 320, 320)));
    }

    @Test
    void sileroVad() throws Exception {
        Map<String, Tensor> in = new LinkedHashMap<>();
        in.put("input", Models.randomTensor(14, 1, 512));
        in.put("state", Models.randomTensor(15, 2, 1, 128));
        in.put("sr", Tensor.ofLongs(new long[] {16000}));
        check("Silero VAD v5", Files.readAllBytes(Models.cached("silero-vad-v5")), in);
    }

    @Test
    void wakeWordMelSpectrogram() throws Exception {
        check("openWakeWord mel spectrogram", Files.readAllBytes(Models.cached("oww-melspectrogram")),
                Map.of("input", Models.randomTensor(12, 1, 16000)));
    }

    @Test
    void wakeWordEmbedding() throws Exception {
        Path model = Models.cached("oww-embedding");
        check("openWakeWord embedding", Files.readAllBytes(model), Map.of("input_1",
                Models.randomTensor(13, 1, 76, 32, 1)));
    }

    private static void check(String what, byte[] model, Map<String, Tensor> inputs) throws Exception {
        Map<String, Tensor> ours;
        List<EpDevice> ort = env.epDevices().stream().filter(d -> d.epName().equals(OrtEpFactory.NAME)).toList();
        try (Session s = env.createSession(model, new SessionOptions().appendExecutionProvider(ort, Map.of()))) {
            List<String> controlFlow = s.assignment().stream().filter(a -> List.of("If", "Loop", "Scan")
                    .contains(a.opType()) && a.ep().equals(OrtEpFactory.NAME)).map(a -> a.node() + "/").toList();
            for (NodeAssignment a : s.assignment()) {
                if (controlFlow.stream().anyMatch(a.node()::startsWith)) {
                    // inside a control-flow node ONNX Runtime runs: it runs there with its parent
                    continue;
                }
                assertEquals(OrtEpFactory.NAME, a.ep(), what + ": node " + a.node() + " (" + a.opType() + ")");
            }
            ours = s.run(inputs);
        }
        Map<String, Tensor> theirs = direct(model, inputs);
        assertEquals(theirs.keySet(), ours.keySet(), what + ": outputs");
        for (Map.Entry<String, Tensor> e : theirs.entrySet()) {
            assertNull(TensorComparison.difference(e.getValue(), ours.get(e.getKey()), 0, TOLERANCE),
                    what + ": output " + e.getKey());
        }
    }

    /** ONNX Runtime's Java API run directly, default optimizations, float32 and int64 values. */
    static Map<String, Tensor> direct(byte[] model, Map<String, Tensor> inputs) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Map<String, OnnxTensor> feeds = new HashMap<>();
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions();
             OrtSession s = env.createSession(model, o)) {
            for (Map.Entry<String, Tensor> e : inputs.entrySet()) {
                Tensor t = e.getValue();
                feeds.put(e.getKey(), t.type() == ElementType.FLOAT
                        ? OnnxTensor.createTensor(env, FloatBuffer.wrap(t.floats()), t.shape())
                        : OnnxTensor.createTensor(env, LongBuffer.wrap(t.longs()), t.shape()));
            }
            Map<String, Tensor> out = new LinkedHashMap<>();
            try (OrtSession.Result r = s.run(feeds)) {
                for (Map.Entry<String, OnnxValue> e : r) {
                    OnnxTensor t = (OnnxTensor) e.getValue();
                    out.put(e.getKey(), Tensor.ofFloats(t.getFloatBuffer().array(), t.getInfo().getShape()));
                }
            }
            return out;
        } finally {
            feeds.values().forEach(OnnxTensor::close);
        }
    }
}
