package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user starts it ({@code bin/ortex}, the shell) serves its {@code models/} folder over the Open
 * Inference Protocol: the demo model answers at once, a model folder copied in while it runs is served, the answers
 * equal a direct session run's, and {@code ortex:models} lists both.
 */
class ServeDistributionIT {
    private static final String INFER = "{\"inputs\":["
            + "{\"name\":\"input_ids\",\"datatype\":\"INT64\",\"shape\":[1,4],\"data\":[101,7592,2088,102]},"
            + "{\"name\":\"attention_mask\",\"datatype\":\"INT64\",\"shape\":[1,4],\"data\":[1,1,1,1]},"
            + "{\"name\":\"token_type_ids\",\"datatype\":\"INT64\",\"shape\":[1,4],\"data\":[0,0,0,0]}],"
            + "\"outputs\":[{\"name\":\"last_hidden_state\",\"parameters\":{\"binary_data\":true}}]}";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<byte[]> send(int port, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60));
        b = body == null ? b.GET() : b.method(method, HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private void awaitStatus(int port, String path, int status) throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                if (send(port, "GET", path, null).statusCode() == status) {
                    return;
                }
            } catch (java.io.IOException notYet) {
                // the server is not listening yet
            }
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("GET " + path + " never answered " + status);
            }
            Thread.sleep(100);
        }
    }

    private static float[] binaryOutput(HttpResponse<byte[]> r, int count) {
        int header = Integer.parseInt(r.headers().firstValue("Inference-Header-Content-Length").orElseThrow());
        float[] f = new float[count];
        ByteBuffer.wrap(r.body(), header, count * 4).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
        return f;
    }

    @Test
    void servesTheDemoModelAndAModelCopiedIn(@TempDir Path dir) throws Exception {
        // the copy leaves out models/; put the demo model back as the distribution ships it
        Path home = ShellProcess.copyDistribution(dir.resolve("ortex"));
        Path dist = Path.of(System.getProperty("ortex.dist", "../assembly/target/ortex")).toAbsolutePath();
        Path demo = home.resolve("models/all-minilm-l6-v2/1/model.onnx");
        Files.createDirectories(demo.getParent());
        Files.copy(dist.resolve("models/all-minilm-l6-v2/1/model.onnx"), demo);
        Tensor expected;
        try (Environment env = Environment.create();
             Session direct = env.createSession(demo, new SessionOptions())) {
            expected = direct.run(Map.of("input_ids", Tensor.ofLongs(new long[] {101, 7592, 2088, 102}, 1, 4),
                    "attention_mask", Tensor.ofLongs(new long[] {1, 1, 1, 1}, 1, 4),
                    "token_type_ids", Tensor.ofLongs(new long[4], 1, 4))).get("last_hidden_state");
        }
        int port = ShellProcess.freePort();
        try (ShellProcess shell = ShellProcess.start(home, "-Dorg.osgi.service.http.port=" + port)) {
            awaitStatus(port, "/v2/health/ready", 200);
            HttpResponse<byte[]> r = send(port, "POST", "/v2/models/all-minilm-l6-v2/infer", INFER);
            assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
            assertArrayEquals(expected.floats(), binaryOutput(r, expected.size()), 1e-5f);

            // a model folder copied in under a hidden name, then renamed, is served within seconds
            Path staging = Files.createDirectories(home.resolve("models/.embed/7"));
            Files.copy(demo, staging.resolve("model.onnx"));
            Files.move(home.resolve("models/.embed"), home.resolve("models/embed"), StandardCopyOption.ATOMIC_MOVE);
            awaitStatus(port, "/v2/models/embed/versions/7/ready", 200);
            HttpResponse<byte[]> copied = send(port, "POST", "/v2/models/embed/infer", INFER);
            assertEquals(200, copied.statusCode());
            assertArrayEquals(expected.floats(), binaryOutput(copied, expected.size()), 1e-5f);

            String models = shell.run("ortex:models");
            assertTrue(models.matches("(?s).*all-minilm-l6-v2 +1 +READY +0 +CPUExecutionProvider.*"), models);
            assertTrue(models.matches("(?s).*embed +7 +READY .*"), models);
            assertTrue(shell.run("ortex:unload embed").contains("model 'embed' unloaded"));
            assertEquals(503, send(port, "POST", "/v2/models/embed/infer", INFER).statusCode());
            String metrics = new String(send(port, "GET", "/metrics", null).body(), StandardCharsets.UTF_8);
            assertTrue(metrics.contains("ortex_inference_requests_total{model=\"embed\",version=\"7\"} 1\n"), metrics);
        }
    }
}
