package io.ortex.samples.jpms;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/** Lists the EP devices and embeds "hello world": {@code java -p ... -m io.ortex.samples.jpms/...JpmsSample MODEL}. */
public final class JpmsSample {
    public static void main(String[] args) {
        try (Environment environment = Environment.create()) {     // the io.ortex.runtime module, found as a service
            for (EpDevice device : environment.epDevices()) {          // from the EP modules on the module path
                System.out.println("EP device " + device);
            }
            try (Session session = environment.createSession(Path.of(args[0]), new SessionOptions())) {
                Map<String, Tensor> outputs = session.run(Map.of(
                        "input_ids", Tensor.of(new long[][] {{101, 7592, 2088, 102}}),
                        "attention_mask", Tensor.of(new long[][] {{1, 1, 1, 1}}),
                        "token_type_ids", Tensor.of(new long[][] {{0, 0, 0, 0}})));
                float[] values = outputs.get("last_hidden_state").toFloatArray();
                System.out.println(JpmsSample.class.getModule() + " ran " + session.executionProviders()
                        + ", first values " + Arrays.toString(Arrays.copyOf(values, 3)));
            }
        }
    }
}
