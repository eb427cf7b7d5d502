package io.ortex.benchmarks;

import io.ortex.api.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The real models the end-to-end benchmarks run, from the cache {@code ../shared/models/fetch.sh} fills
 * ({@code ~/.cache/ortex-models}, or the {@code ortex.models} system property), with inputs of the shapes in
 * {@code models.tsv}.
 */
final class RealModels {
    private RealModels() {
    }

    /**
     * Finds a cached model.
     *
     * @param name the model's folder, such as {@code all-minilm-l6-v2}
     * @return the model file
     * @throws IOException when it is missing, saying how to fetch it
     */
    static Path file(String name) throws IOException {
        Path dir = Path.of(System.getProperty("ortex.models", System.getProperty("user.home")
                + "/.cache/ortex-models"));
        Path file = dir.resolve(name).resolve("model.onnx");
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + " is missing: run ../shared/models/fetch.sh " + name);
        }
        return file;
    }

    /**
     * Gives seeded inputs that fit a model at batch 1: MiniLM at sequence length 128 (token ids, an all-ones mask,
     * zero token types); PP-OCRv4 det on a 640x640 image of values in [-1, 1).
     *
     * @param name the model's folder
     * @return the inputs by name
     */
    static Map<String, Tensor> inputs(String name) {
        SplittableRandom random = new SplittableRandom(42);
        Map<String, Tensor> in = new LinkedHashMap<>();
        switch (name) {
            case "all-minilm-l6-v2": {
                long[] ids = new long[128];
                long[] mask = new long[128];
                for (int i = 0; i < 128; i++) {
                    ids[i] = i == 0 ? 101 : i == 127 ? 102 : 1000 + random.nextInt(29000);
                    mask[i] = 1;
                }
                in.put("input_ids", Tensor.ofLongs(ids, 1, 128));
                in.put("attention_mask", Tensor.ofLongs(mask, 1, 128));
                in.put("token_type_ids", Tensor.ofLongs(new long[128], 1, 128));
                return in;
            }
            case "ppocr-v4-det":
                in.put("x", Tensor.ofFloats(BenchModels.randomFloats(3 * 640 * 640, 42), 1, 3, 640, 640));
                return in;
            default:
                throw new IllegalArgumentException("no inputs known for model " + name);
        }
    }
}
