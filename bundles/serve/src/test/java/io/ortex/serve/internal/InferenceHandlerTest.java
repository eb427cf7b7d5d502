package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.serve.internal.HttpExchange.Reply;
import io.ortex.serve.internal.HttpExchange.Request;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The routes on a real repository of tiny models run by the runtime and the CPU EP. */
class InferenceHandlerTest {
    @TempDir
    Path models;

    private Environment environment;
    private ModelRepository repository;
    private Metrics metrics;
    private InferenceHandler handler;

    /** Version 1 adds, version 2 subtracts: {@code y = a op b}, both {@code [N, 3]}. */
    private static void writeModel(Path models, String name, int version) throws IOException {
        new ModelBuilder().opset(17)
                .input("a", ElementType.FLOAT, -1, 3).input("b", ElementType.FLOAT, -1, 3)
                .output("y", ElementType.FLOAT, -1, 3)
                .node(version == 1 ? "Add" : "Sub", "op", List.of("a", "b"), List.of("y"))
                .write(models.resolve(name).resolve(Integer.toString(version)).resolve("model.onnx"));
    }

    @BeforeEach
    void start() throws IOException {
        writeModel(models, "calc", 1);
        environment = Environment.create();
        repository = new ModelRepository(environment, models);
        repository.scan();
        metrics = new Metrics();
        handler = new InferenceHandler(new InferenceCore(repository, metrics, "0.1.0"),
                new InferRequestDecoder(1 << 20));
    }

    @AfterEach
    void stop() {
        repository.close();
        environment.close();
    }

    private Reply get(String path) {
        return handler.handle(new Request("GET", path, null, new byte[0]));
    }

    private Reply post(String path, String body) {
        return handler.handle(new Request("POST", path, null, body.getBytes(StandardCharsets.UTF_8)));
    }

    private static String text(Reply r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static final String REQUEST = "{\"id\":\"q\",\"inputs\":["
            + "{\"name\":\"a\",\"datatype\":\"FP32\",\"shape\":[2,3],\"data\":[[1,2,3],[4,5,6]]},"
            + "{\"name\":\"b\",\"datatype\":\"FP32\",\"shape\":[2,3],\"data\":[0.5,0.5,0.5,1,1,1]}]}";

    @Test
    void answersHealthAndMetadata() {
        assertEquals("{\"live\":true}", text(get("/v2/health/live")));
        assertEquals("{\"ready\":true}", text(get("/v2/health/ready")));
        assertEquals("{\"name\":\"ortex\",\"version\":\"0.1.0\",\"extensions\":[\"binary_tensor_data\","
                + "\"model_repository\"]}", text(get("/v2")));
        Reply meta = get("/v2/models/calc");
        assertEquals(200, meta.status());
        assertEquals("{\"name\":\"calc\",\"versions\":[\"1\"],\"platform\":\"onnx\",\"inputs\":["
                + "{\"name\":\"a\",\"datatype\":\"FP32\",\"shape\":[-1,3]},"
                + "{\"name\":\"b\",\"datatype\":\"FP32\",\"shape\":[-1,3]}],"
                + "\"outputs\":[{\"name\":\"y\",\"datatype\":\"FP32\",\"shape\":[-1,3]}]}", text(meta));
        assertEquals(200, get("/v2/models/calc/versions/1").status());
        assertEquals(200, get("/v2/models/calc/ready").status());
        assertEquals(200, get("/v2/models/calc/versions/1/ready").status());
        assertEquals(400, get("/v2/models/calc/versions/2/ready").status());
        assertEquals(404, get("/v2/models/calc/versions/2").status());
        assertEquals(404, get("/v2/models/other").status());
        assertEquals(405, get("/v2/models/calc/infer").status());
        assertEquals(404, get("/v3").status());
    }

    @Test
    void infersAsTheSessionDoes() {
        Reply r = post("/v2/models/calc/infer", REQUEST);
        assertEquals(200, r.status(), text(r));
        try (Session direct = environment.createSession(models.resolve("calc/1/model.onnx"), new SessionOptions())) {
            Tensor y = direct.run(Map.of("a", Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3),
                    "b", Tensor.ofFloats(new float[] {0.5f, 0.5f, 0.5f, 1, 1, 1}, 2, 3))).get("y");
            StringBuilder data = new StringBuilder();
            for (float v : y.floats()) {
                data.append(data.length() == 0 ? "" : ",").append(v);
            }
            assertEquals("{\"model_name\":\"calc\",\"model_version\":\"1\",\"id\":\"q\",\"outputs\":[{\"name\":\"y\","
                    + "\"datatype\":\"FP32\",\"shape\":[2,3],\"data\":[" + data + "]}]}", text(r));
        }
        Reply v1 = post("/v2/models/calc/versions/1/infer", REQUEST);
        assertEquals(200, v1.status());
        Reply binary = post("/v2/models/calc/infer", REQUEST.replace("{\"id\":\"q\",",
                "{\"outputs\":[{\"name\":\"y\",\"parameters\":{\"binary_data\":true}}],"));
        assertEquals(200, binary.status());
        int header = Integer.parseInt(binary.headers().get(InferenceHandler.HEADER_LENGTH));
        assertEquals("application/octet-stream", binary.contentType());
        float[] y = new float[6];
        ByteBuffer.wrap(binary.body(), header, 24).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(y);
        assertArrayEquals(new float[] {1.5f, 2.5f, 3.5f, 5, 6, 7}, y);
        String metrics = this.metrics.prometheusText();
        assertTrue(metrics.contains("ortex_inference_requests_total{model=\"calc\",version=\"1\"} 3\n"), metrics);
    }

    @Test
    void refusesRequestsThatDoNotFitTheModel() {
        assertEquals("{\"error\":\"input 'b' is missing (model 'calc' takes 'a', 'b')\"}",
                text(post("/v2/models/calc/infer", REQUEST.replace(",{\"name\":\"b\"", ",{\"name\":\"c\""))));
        Reply wrongType = post("/v2/models/calc/infer", REQUEST.replace("\"FP32\",\"shape\":[2,3],\"data\":[[",
                "\"FP64\",\"shape\":[2,3],\"data\":[["));
        assertEquals(400, wrongType.status());
        assertEquals("{\"error\":\"input 'a': datatype FP64, but model 'calc' takes FP32\"}", text(wrongType));
        Reply wrongShape = post("/v2/models/calc/infer", REQUEST.replace("[2,3],\"data\":[[1,2,3],[4,5,6]]",
                "[3,2],\"data\":[[1,2],[3,4],[5,6]]"));
        assertEquals("{\"error\":\"input 'a': shape [3,2] does not fit the model's [N,3]\"}", text(wrongShape));
        Reply unknownOutput = post("/v2/models/calc/infer", REQUEST.replace("{\"id\":\"q\",",
                "{\"outputs\":[{\"name\":\"z\"}],"));
        assertEquals("{\"error\":\"model 'calc' has no output 'z' (it has 'y')\"}", text(unknownOutput));
        Reply malformed = post("/v2/models/calc/infer", "{\"inputs\":");
        assertEquals(400, malformed.status());
        assertTrue(text(malformed).startsWith("{\"error\":\"the request is not valid JSON"), text(malformed));
        // a failed request on a model is counted
        assertTrue(metrics.prometheusText().contains("ortex_inference_failures_total{model=\"calc\",version=\"1\"} 5"),
                metrics.prometheusText());
    }

    @Test
    void refusesHostileNames() {
        Reply newline = post("/v2/models/a%0Ab/infer", REQUEST);
        assertEquals(400, newline.status());
        assertEquals("{\"error\":\"invalid model name 'a\\\\nb' (letters, digits, '_', '-' and '.', starting with a "
                + "letter or digit, at most 128 characters)\"}", text(newline));
        assertEquals(400, post("/v2/models/../infer", REQUEST).status());
        assertEquals(400, post("/v2/models/%2E%2E/infer", REQUEST).status());
        assertEquals(400, post("/v2/models/a%2Fb/infer", REQUEST).status());
        assertEquals(400, post("/v2/models/%ZZ/infer", REQUEST).status());
        assertEquals(400, post("/v2/models/%C3%28/infer", REQUEST).status());
        assertEquals(400, get("/v2/models/calc/versions/-1").status());
        assertEquals(404, post("/v2/models//infer", REQUEST).status());
        assertEquals(400, post("/v2/repository/models/..%2F..%2Fetc/load", "").status());
        // nothing of that reached the metrics as a label
        assertFalse(metrics.prometheusText().contains("a\\nb"));
    }

    @Test
    void indexesLoadsAndUnloads() throws IOException {
        Files.createDirectories(models.resolve("broken/1"));
        Files.write(models.resolve("broken/1/model.onnx"), new byte[] {1, 2, 3});
        repository.scan();
        String index = text(post("/v2/repository/index", ""));
        assertTrue(index.startsWith("[{\"name\":\"broken\",\"version\":\"1\",\"state\":\"UNAVAILABLE\",\"reason\":"
                + "\"version 1: "), index);
        assertTrue(index.endsWith("{\"name\":\"calc\",\"version\":\"1\",\"state\":\"READY\",\"reason\":\"\"}]"), index);
        Reply notLoaded = post("/v2/models/broken/infer", REQUEST);
        assertEquals(503, notLoaded.status());
        assertEquals(400, post("/v2/repository/models/broken/load", "").status());
        assertEquals(200, post("/v2/repository/models/calc/unload", "").status());
        assertEquals(503, post("/v2/models/calc/infer", REQUEST).status());
        repository.scan();  // an unloaded model stays unloaded while its files are unchanged
        assertEquals(503, post("/v2/models/calc/infer", REQUEST).status());
        assertTrue(text(post("/v2/repository/index", "")).contains("\"name\":\"calc\",\"version\":\"\","
                + "\"state\":\"UNLOADED\""));
        assertEquals(200, post("/v2/repository/models/calc/load", "").status());
        assertEquals(200, post("/v2/models/calc/infer", REQUEST).status());
        assertEquals(400, post("/v2/repository/models/nothing/load", "").status());
        assertEquals(400, post("/v2/repository/models/nothing/unload", "").status());
    }

    @Test
    void aNewVersionTakesOverWithoutDroppingRequests() throws Exception {
        ServedModel held = repository.acquire("calc", null);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<List<String>>> results = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            results.add(clients.submit(() -> {
                List<String> failures = new ArrayList<>();
                List<String> versions = new ArrayList<>();
                for (int i = 0; i < 5000 && !stop.get(); i++) {
                    Reply r = post("/v2/models/calc/infer", REQUEST);
                    if (r.status() != 200) {
                        failures.add(text(r));
                    } else {
                        String body = text(r);
                        versions.add(body.contains("\"model_version\":\"2\"") ? "2" : "1");
                    }
                }
                failures.add(0, "versions seen: " + versions.stream().distinct().sorted().toList());
                return failures;
            }));
        }
        Thread.sleep(200);
        writeModel(models, "calc", 2);
        repository.scan();
        Thread.sleep(200);
        stop.set(true);
        clients.shutdown();
        assertTrue(clients.awaitTermination(60, TimeUnit.SECONDS));
        for (Future<List<String>> f : results) {
            List<String> r = f.get();
            assertEquals(1, r.size(), "failed requests: " + r);
        }
        // version 2 (subtraction) serves now; version 1 stays open while this reference holds it
        assertTrue(text(post("/v2/models/calc/infer", REQUEST)).contains("\"data\":[0.5,1.5,2.5,3.0,4.0,5.0]"));
        assertFalse(held.closed());
        Tensor stillRuns = held.session().run(Map.of("a", Tensor.ofFloats(new float[] {1, 1, 1}, 1, 3),
                "b", Tensor.ofFloats(new float[] {1, 1, 1}, 1, 3))).get("y");
        assertArrayEquals(new float[] {2, 2, 2}, stillRuns.floats());
        repository.release(held);
        assertTrue(held.closed());
    }

    @Test
    void unloadsAFolderThatDisappears() throws IOException {
        ServedModel held = repository.acquire("calc", null);
        Files.delete(models.resolve("calc/1/model.onnx"));
        Files.delete(models.resolve("calc/1"));
        Files.delete(models.resolve("calc"));
        repository.scan();
        assertEquals(404, post("/v2/models/calc/infer", REQUEST).status());
        assertFalse(held.closed());
        repository.release(held);
        assertTrue(held.closed());
    }
}
