package io.ortex.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Environment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorComparison;
import io.ortex.testing.RealModels;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs real models from package registries through Ortex and through Microsoft's ONNX Runtime (graph optimizations
 * off) on the same seeded inputs, and requires every output to agree within rtol 1e-3 / atol 1e-4.
 * The models come from Maven Central and the npm registry, pinned by sha256 ({@link RealModels}).
 */
class RealModelsTest {
    static final double RTOL = 1e-3;
    static final double ATOL = 1e-4;

    private static Environment ortex;
    private static OrtEnvironment ort;

    @BeforeAll
    static void environments() {
        ortex = Environment.create();
        ort = OrtEnvironment.getEnvironment();
    }

    @AfterAll
    static void close() {
        ortex.close();
    }

    @Test
    void allMiniLmMatchesOnnxRuntime() throws Exception {
        compare(cached("all-minilm-l6-v2"), miniLmInputs(7));
    }

    @Test
    void allMiniLmFromItsFileGathersItsEmbeddingsFromTheFileAsFromBytes(@TempDir Path dir) throws Exception {
        // from a file, the word-embedding table stays there and its rows are read from a mapping of it; from bytes
        // (as compared with ONNX Runtime above) it is decoded onto the heap: the outputs are the same
        Path file = Files.copy(RealModels.model("all-minilm-l6-v2"), dir.resolve("model.onnx"));
        Map<String, Tensor> inputs = miniLmInputs(9);
        try (Session fromFile = ortex.createSession(file, new SessionOptions());
             Session fromBytes = ortex.createSession(Files.readAllBytes(file), new SessionOptions())) {
            Map<String, Tensor> mapped = fromFile.run(inputs);
            Map<String, Tensor> decoded = fromBytes.run(inputs);
            for (String name : decoded.keySet()) {
                assertArrayEquals(decoded.get(name).floats(), mapped.get(name).floats(), name);
            }
            // the file cut short: only the session that reads the table from it fails, and says why
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(1 << 20);
            }
            fromBytes.run(inputs);
            OrtexException e = assertThrows(OrtexException.class, () -> fromFile.run(inputs));
            assertTrue(e.getMessage().contains("cut short"), e.getMessage());
        }
    }

    @Test
    void quantizedAllMiniLmMatchesOnnxRuntimeTokenByToken() throws Exception {
        // one 8-bit rounding that falls the other way (its input differs in the last bit) moves the following
        // layers' activations a little, so a dynamically quantized encoder is compared by the direction of each
        // token's embedding, the way its users compare embeddings
        byte[] model = cached("all-minilm-l6-v2-q");
        Map<String, Tensor> inputs = miniLmInputs(8);
        Tensor ours;
        try (Session session = ortex.createSession(model, new SessionOptions())) {
            ours = session.run(inputs).get("last_hidden_state");
            // each of the 24 quantizers runs fused with the products that read it (query, key and value share one)
            java.util.Set<String> quantizers = new java.util.HashSet<>();
            java.util.Set<String> products = new java.util.HashSet<>();
            for (io.ortex.api.NodeAssignment a : session.assignment()) {
                (a.opType().equals("DynamicQuantizeLinear") ? quantizers
                        : a.opType().equals("MatMulInteger") ? products : new java.util.HashSet<String>())
                        .add(a.partition());
            }
            assertEquals(24, quantizers.size(), "quantizers each in a partition of their own");
            assertTrue(quantizers.containsAll(products), "every MatMulInteger fused with its quantizer");
        }
        Tensor reference = runOrt(model, inputs).get("last_hidden_state");
        int tokens = (int) reference.dim(1);
        int width = (int) reference.dim(2);
        for (int t = 0; t < tokens; t++) {
            double dot = 0;
            double a = 0;
            double b = 0;
            for (int i = t * width; i < (t + 1) * width; i++) {
                dot += (double) ours.floats()[i] * reference.floats()[i];
                a += (double) ours.floats()[i] * ours.floats()[i];
                b += (double) reference.floats()[i] * reference.floats()[i];
            }
            double cosine = dot / Math.sqrt(a * b);
            assertTrue(cosine > 0.99, "token " + t + ": cosine " + cosine);
        }
    }

    private static Map<String, Tensor> miniLmInputs(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] shape = {1, 128};
        long[] ids = new long[128];
        long[] mask = new long[128];
        for (int i = 0; i < 128; i++) {
            ids[i] = i == 0 ? 101 : i == 127 ? 102 : 1000 + random.nextInt(29000);
            mask[i] = 1;
        }
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        inputs.put("input_ids", Tensor.ofLongs(ids, shape));
        inputs.put("attention_mask", Tensor.ofLongs(mask, shape));
        inputs.put("token_type_ids", Tensor.ofLongs(new long[128], shape));
        return inputs;
    }

    @Test
    void ppOcrDetectorMatchesOnnxRuntime() throws Exception {
        compare(cached("ppocr-v4-det"), Map.of("x", randomFloats(new long[] {1, 3, 320, 320}, 11)));
    }

    @Test
    void wakeWordMelSpectrogramMatchesOnnxRuntime() throws Exception {
        compare(cached("oww-melspectrogram"), Map.of("input", randomFloats(new long[] {1, 16000}, 12)));
    }

    @Test
    void wakeWordEmbeddingMatchesOnnxRuntime() throws Exception {
        compare(cached("oww-embedding"), Map.of("input_1", randomFloats(new long[] {1, 76, 32, 1}, 13)));
    }

    @Test
    void sileroVadMatchesOnnxRuntime() throws Exception {
        // If (on the sample rate) and LSTM; the 16 kHz branch is taken, with a seeded non-zero state
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        inputs.put("input", randomFloats(new long[] {1, 512}, 14));
        Tensor state = randomFloats(new long[] {2, 1, 128}, 15);
        for (int i = 0; i < state.size(); i++) {
            state.floats()[i] *= 0.5f;
        }
        inputs.put("state", state);
        inputs.put("sr", Tensor.ofLongs(new long[] {16000}));
        compare(cached("silero-vad-v5"), inputs);
    }

    static byte[] cached(String name) throws IOException {
        return Files.readAllBytes(RealModels.model(name));
    }

    static Tensor randomFloats(long[] shape, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] a = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return Tensor.ofFloats(a, shape);
    }

    /**
     * Runs a model in Ortex (default optimizations, saving the optimized model) twice, and in ONNX Runtime without
     * optimizations on the source and on Ortex's optimized model: every output must agree, the second run must
     * repeat the first (up to the rounding of a reduction the JIT compiled in between), and the first run's outputs
     * must be exactly unchanged by the second (the run's recycled memory never reaches a caller).
     */
    private static void compare(byte[] model, Map<String, Tensor> inputs) throws OrtException, IOException {
        Map<String, Tensor> ours;
        Path optimized = Files.createTempFile("ortex-optimized-", ".onnx");
        try {
            try (Session session = ortex.createSession(model, new SessionOptions()
                    .config(SessionOptions.OPTIMIZED_MODEL_FILEPATH, optimized.toString()))) {
                ours = session.run(inputs);
                Map<String, float[]> firstCopy = new HashMap<>();
                ours.forEach((k, v) -> firstCopy.put(k, v.floats().clone()));
                Map<String, Tensor> again = session.run(inputs);
                for (Map.Entry<String, Tensor> e : ours.entrySet()) {
                    assertArrayEquals(firstCopy.get(e.getKey()), e.getValue().floats(),
                            "output " + e.getKey() + " of the first run changed during the second");
                    // equal up to rounding: the JIT may compile a reduction between the runs, changing its order
                    assertNull(TensorComparison.difference(e.getValue(), again.get(e.getKey()), RTOL, ATOL),
                            "output " + e.getKey() + " of the second run");
                }
            }
            Map<String, Tensor> reference = runOrt(model, inputs);
            assertEquals(reference.size(), ours.size(), "output count");
            Map<String, Tensor> fromOptimized = runOrt(Files.readAllBytes(optimized), inputs);
            for (Map.Entry<String, Tensor> e : ours.entrySet()) {
                Tensor expected = reference.get(e.getKey());
                assertNull(TensorComparison.difference(expected, e.getValue(), RTOL, ATOL), "output " + e.getKey());
                assertNull(TensorComparison.difference(expected, fromOptimized.get(e.getKey()), RTOL, ATOL),
                        "output " + e.getKey() + " of ONNX Runtime on Ortex's optimized model");
            }
        } finally {
            Files.deleteIfExists(optimized);
        }
    }

    private static Map<String, Tensor> runOrt(byte[] model, Map<String, Tensor> inputs) throws OrtException {
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.NO_OPT);
            try (OrtSession session = ort.createSession(model, options)) {
                Map<String, OnnxTensor> feeds = new HashMap<>();
                try {
                    for (Map.Entry<String, Tensor> e : inputs.entrySet()) {
                        feeds.put(e.getKey(), toOrt(e.getValue()));
                    }
                    try (OrtSession.Result result = session.run(feeds)) {
                        Map<String, Tensor> out = new LinkedHashMap<>();
                        for (Map.Entry<String, ai.onnxruntime.OnnxValue> e : result) {
                            out.put(e.getKey(), fromOrt((OnnxTensor) e.getValue()));
                        }
                        return out;
                    }
                } finally {
                    feeds.values().forEach(OnnxTensor::close);
                }
            }
        }
    }

    private static OnnxTensor toOrt(Tensor t) throws OrtException {
        switch (t.type()) {
            case FLOAT: return OnnxTensor.createTensor(ort, FloatBuffer.wrap(t.floats()), t.shape());
            case INT64: return OnnxTensor.createTensor(ort, LongBuffer.wrap(t.longs()), t.shape());
            default: throw new IllegalArgumentException("test inputs are float32 or int64, not " + t.type());
        }
    }

    private static Tensor fromOrt(OnnxTensor t) {
        long[] shape = t.getInfo().getShape();
        switch (t.getInfo().type) {
            case FLOAT: {
                FloatBuffer b = t.getFloatBuffer();
                float[] a = new float[b.remaining()];
                b.get(a);
                return Tensor.ofFloats(a, shape);
            }
            case INT64: {
                LongBuffer b = t.getLongBuffer();
                long[] a = new long[b.remaining()];
                b.get(a);
                return Tensor.ofLongs(a, shape);
            }
            default: throw new IllegalArgumentException("unexpected output type " + t.getInfo().type);
        }
    }
}
