package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The real models the benchmarks run and inputs that fit them at batch 1, as the model list describes them: token ids
 * for all-MiniLM-L6-v2 and its 8-bit twin (128 tokens), a 640x640 image for PP-OCRv4 det, a 512-sample frame for
 * Silero VAD v5, a second of audio for the openWakeWord mel spectrogram, 76 mel frames for its embedding. Models are
 * read from {@code <ortex.models>/<name>/model.onnx}, the system property defaulting to {@code ~/.cache/ortex-models}.
 */
final class RealModels {
    /** The model names, as folders of the model cache. */
    static final String[] NAMES = {"all-minilm-l6-v2", "all-minilm-l6-v2-q", "ppocr-v4-det", "silero-vad-v5",
        "oww-melspectrogram", "oww-embedding"};

    private RealModels() {
    }

    static Path file(String name) {
        Path dir = Path.of(System.getProperty("ortex.models", System.getProperty("user.home")
                + "/.cache/ortex-models"));
        Path file = dir.resolve(name).resolve("model.onnx");
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(file + " is missing: fetch the models first (the build's tests do, "
                    + "or set -Dortex.models=DIR)");
        }
        return file;
    }

    static byte[] bytes(String name) {
        try {
            return Files.readAllBytes(file(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Seeded inputs for a model, as Ortex tensors, in graph order. */
    static Map<String, Tensor> inputs(String name) {
        SplittableRandom r = new SplittableRandom(42);
        Map<String, Tensor> in = new LinkedHashMap<>();
        switch (name) {
            case "all-minilm-l6-v2":
            case "all-minilm-l6-v2-q": {
                long[] ids = new long[128];
                long[] mask = new long[128];
                for (int i = 0; i < 128; i++) {
                    ids[i] = i == 0 ? 101 : i == 127 ? 102 : 1000 + r.nextInt(29000);
                    mask[i] = 1;
                }
                in.put("input_ids", Tensor.ofLongs(ids, 1, 128));
                in.put("attention_mask", Tensor.ofLongs(mask, 1, 128));
                in.put("token_type_ids", Tensor.ofLongs(new long[128], 1, 128));
                return in;
            }
            case "ppocr-v4-det":
                in.put("x", floats(r, 1, 3, 640, 640));
                return in;
            case "silero-vad-v5":
                in.put("input", floats(r, 1, 512));
                in.put("state", floats(r, 2, 1, 128));
                in.put("sr", Tensor.ofLongs(new long[] {16000}));
                return in;
            case "oww-melspectrogram":
                in.put("input", floats(r, 1, 16000));
                return in;
            case "oww-embedding":
                in.put("input_1", floats(r, 1, 76, 32, 1));
                return in;
            default:
                throw new IllegalArgumentException("unknown model " + name);
        }
    }

    private static Tensor floats(SplittableRandom r, long... shape) {
        float[] f = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return Tensor.of(io.ortex.api.ElementType.FLOAT, shape, f);
    }

    /** The same inputs for ONNX Runtime. */
    static Map<String, OnnxTensor> toOrt(Map<String, Tensor> inputs) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Map<String, OnnxTensor> out = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : inputs.entrySet()) {
            Tensor t = e.getValue();
            switch (t.type()) {
                case FLOAT:
                    out.put(e.getKey(), OnnxTensor.createTensor(env, FloatBuffer.wrap(t.floats()), t.shape()));
                    break;
                case INT64:
                    out.put(e.getKey(), OnnxTensor.createTensor(env, LongBuffer.wrap(t.longs()), t.shape()));
                    break;
                default:
                    throw new IllegalArgumentException("input " + e.getKey() + " is " + t.type());
            }
        }
        return out;
    }
}
