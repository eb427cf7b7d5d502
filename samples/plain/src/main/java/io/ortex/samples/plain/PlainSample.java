package io.ortex.samples.plain;

import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/** Embeds "hello world" with all-MiniLM-L6-v2: {@code java -cp ... io.ortex.samples.plain.PlainSample MODEL}. */
public final class PlainSample {
    public static void main(String[] args) {
        SessionOptions options = new SessionOptions()
                .selectionPolicy(ExecutionProviderDevicePolicy.MAX_PERFORMANCE); // a GPU or NPU EP first, if any
        try (Environment environment = Environment.create();
             Session session = environment.createSession(Path.of(args[0]), options)) {
            long[][] tokens = {{101, 7592, 2088, 102}};                         // [CLS] hello world [SEP]
            Map<String, Tensor> outputs = session.run(Map.of(
                    "input_ids", Tensor.of(tokens),
                    "attention_mask", Tensor.of(new long[][] {{1, 1, 1, 1}}),
                    "token_type_ids", Tensor.of(new long[][] {{0, 0, 0, 0}})));
            Tensor hidden = outputs.get("last_hidden_state");                  // 1 x 4 tokens x 384
            float[] values = hidden.toFloatArray();
            System.out.println("EPs " + session.executionProviders() + ", last_hidden_state "
                    + Tensor.shapeString(hidden.shape()) + ", first values " + Arrays.toString(Arrays.copyOf(values, 3)));
        }
    }
}
