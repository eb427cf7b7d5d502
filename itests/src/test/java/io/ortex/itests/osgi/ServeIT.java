package io.ortex.itests.osgi;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.itests.FreePorts;
import io.ortex.testing.RealModels;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The model server in a real Felix with Felix HTTP Jetty on a free port: a real model folder copied into the watched
 * models folder is served over real HTTP, its outputs (JSON and binary) equal to a direct session run's; a second
 * version takes over, a removed folder is unloaded, and {@code /metrics} counts the requests. The bundle's embedded
 * gRPC server (grpc-java on shaded Netty) starts in the framework and listens on its configured port; gRPC calls are
 * made in {@code ServeDistributionIT} and the bundle's own tests, with grpc-java's client outside the framework. The
 * status page is served beside the protocol, and its Web Console plugin registered though no Web Console is there.
 */
@RunWith(PaxExam.class)
public class ServeIT extends OsgiTestSupport {
    private static final String PORT = "org.osgi.service.http.port";
    private static final String MODEL_PROPERTY = "ortex.serve.it.model";
    private static final int TOKENS = 8;

    private final int grpcPort = FreePorts.next();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Override
    protected boolean withExampleBundle() {
        return false;
    }

    @Override
    @Configuration
    public Option[] configuration() {
        List<Option> o = new ArrayList<>(List.of(super.configuration()));
        o.add(systemProperty(PORT).value(Integer.toString(FreePorts.next())));
        o.add(systemProperty("org.apache.felix.http.host").value("127.0.0.1"));
        o.add(systemProperty(MODEL_PROPERTY).value(RealModels.model("all-minilm-l6-v2").toString()));
        o.add(mavenBundle("org.apache.felix", "org.apache.felix.http.servlet-api",
                property("felix.http.servlet.api.version")));
        o.add(mavenBundle("commons-io", "commons-io", property("commons.io.version")));
        o.add(mavenBundle("commons-fileupload", "commons-fileupload", property("commons.fileupload.version")));
        o.add(mavenBundle("org.apache.felix", "org.apache.felix.http.jetty12", property("felix.http.jetty.version")));
        o.add(bundle(ortexJar("bundles/serve", "io.ortex.serve")));
        return o.toArray(new Option[0]);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + context.getProperty(PORT) + path);
    }

    private HttpResponse<byte[]> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private void configureServer(Path models) throws Exception {
        Dictionary<String, Object> d = new Hashtable<>();
        d.put("models.dir", models.toString());
        d.put("poll.ms", 200L);
        d.put("grpc.port", grpcPort);
        ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> t = new ServiceTracker<>(context,
                ConfigurationAdmin.class, null);
        t.open();
        try {
            t.waitForService(10_000).getConfiguration("io.ortex.serve", "?").update(d);
        } finally {
            t.close();
        }
    }

    private static long[] tokens(int seed) {
        long[] ids = new long[TOKENS];
        for (int i = 0; i < TOKENS; i++) {
            ids[i] = i == 0 ? 101 : i == TOKENS - 1 ? 102 : 1000 + (seed * 7919L + i * 104729L) % 20000;
        }
        return ids;
    }

    private static String request(long[] ids, boolean binary) {
        StringBuilder data = new StringBuilder();
        StringBuilder ones = new StringBuilder();
        StringBuilder zeros = new StringBuilder();
        for (int i = 0; i < ids.length; i++) {
            String sep = i == 0 ? "" : ",";
            data.append(sep).append(ids[i]);
            ones.append(sep).append(1);
            zeros.append(sep).append(0);
        }
        String shape = "[1," + ids.length + "]";
        return "{\"id\":\"it\"," + (binary ? "\"parameters\":{\"binary_data_output\":true}," : "") + "\"inputs\":["
                + "{\"name\":\"input_ids\",\"datatype\":\"INT64\",\"shape\":" + shape + ",\"data\":[" + data + "]},"
                + "{\"name\":\"attention_mask\",\"datatype\":\"INT64\",\"shape\":" + shape + ",\"data\":[" + ones
                + "]},{\"name\":\"token_type_ids\",\"datatype\":\"INT64\",\"shape\":" + shape + ",\"data\":["
                + zeros + "]}]}";
    }

    /** Reads the float data of the first output of a JSON response. */
    private static float[] jsonOutput(byte[] body) throws IOException {
        List<Float> values = new ArrayList<>();
        try (JsonParser p = new JsonFactory().createParser(body)) {
            boolean inData = false;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME && p.currentName().equals("data")) {
                    inData = true;
                } else if (inData && (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT)) {
                    values.add(Float.parseFloat(p.getText()));
                } else if (inData && t == JsonToken.END_ARRAY) {
                    break;
                }
            }
        }
        float[] f = new float[values.size()];
        for (int i = 0; i < f.length; i++) {
            f[i] = values.get(i);
        }
        return f;
    }

    private void await(String what, Check check) throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        while (!check.holds()) {
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("timed out after 60 s waiting until " + what);
            }
            Thread.sleep(100);
        }
    }

    /** A condition over HTTP. */
    private interface Check {
        boolean holds() throws Exception;
    }

    @Test
    public void servesAModelCopiedIntoTheModelsFolder() throws Exception {
        Path models = Files.createTempDirectory(Path.of("target"), "serve-models").toAbsolutePath();
        Path source = Path.of(System.getProperty(MODEL_PROPERTY));
        try {
            configureServer(models);
            await("the server answers and is ready", () -> {
                try {
                    return get("/v2/health/ready").statusCode() == 200
                            && text(post("/v2/repository/index", "")).equals("[]");
                } catch (IOException e) {
                    return false;
                }
            });
            assertEquals("{\"live\":true}", text(get("/v2/health/live")));
            await("the gRPC endpoint listens on port " + grpcPort, () -> {
                try (java.net.Socket s = new java.net.Socket("127.0.0.1", grpcPort)) {
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            assertEquals(404, get("/v2/models/minilm").statusCode());

            // copy the model in as a user would: into a hidden name, then renamed into place
            Path hidden = Files.createDirectories(models.resolve(".minilm.tmp/1"));
            Files.copy(source, hidden.resolve("model.onnx"));
            Files.move(models.resolve(".minilm.tmp"), models.resolve("minilm"), StandardCopyOption.ATOMIC_MOVE);
            await("the model is ready", () -> get("/v2/models/minilm/ready").statusCode() == 200);

            String meta = text(get("/v2/models/minilm"));
            assertTrue(meta, meta.startsWith("{\"name\":\"minilm\",\"versions\":[\"1\"],\"platform\":\"onnx\","
                    + "\"inputs\":[{\"name\":\"input_ids\",\"datatype\":\"INT64\",\"shape\":[-1,-1]}"));

            long[] ids = tokens(1);
            Tensor expected;
            Environment env = environment();
            try (Session direct = env.createSession(source, new SessionOptions())) {
                long[] ones = new long[TOKENS];
                java.util.Arrays.fill(ones, 1);
                expected = direct.run(Map.of("input_ids", Tensor.ofLongs(ids, 1, TOKENS),
                        "attention_mask", Tensor.ofLongs(ones, 1, TOKENS),
                        "token_type_ids", Tensor.ofLongs(new long[TOKENS], 1, TOKENS))).get("last_hidden_state");
            }
            HttpResponse<byte[]> json = post("/v2/models/minilm/infer", request(ids, false));
            assertEquals(text(json), 200, json.statusCode());
            assertTrue(text(json).startsWith("{\"model_name\":\"minilm\",\"model_version\":\"1\",\"id\":\"it\","
                    + "\"outputs\":[{\"name\":\"last_hidden_state\",\"datatype\":\"FP32\",\"shape\":[1,8,384],"));
            assertArrayEquals(expected.floats(), jsonOutput(json.body()), 1e-5f);

            HttpResponse<byte[]> binary = post("/v2/models/minilm/versions/1/infer", request(ids, true));
            assertEquals(200, binary.statusCode());
            int header = Integer.parseInt(binary.headers().firstValue("Inference-Header-Content-Length").orElseThrow());
            float[] got = new float[expected.size()];
            ByteBuffer.wrap(binary.body(), header, got.length * 4).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer()
                    .get(got);
            assertArrayEquals(expected.floats(), got, 1e-5f);

            HttpResponse<byte[]> bad = post("/v2/models/minilm/infer", request(ids, false).replace("\"INT64\"",
                    "\"INT32\""));
            assertEquals(400, bad.statusCode());
            assertEquals("{\"error\":\"input 'input_ids': datatype INT32, but model 'minilm' takes INT64\"}",
                    text(bad));
            assertEquals(400, post("/v2/models/a%0Ab/infer", request(ids, false)).statusCode());

            // a second version takes over
            Path v2 = Files.createDirectories(models.resolve("minilm/.2.tmp"));
            Files.copy(source, v2.resolve("model.onnx"));
            Files.move(v2, models.resolve("minilm/2"), StandardCopyOption.ATOMIC_MOVE);
            await("version 2 serves", () -> text(get("/v2/models/minilm")).contains("\"versions\":[\"2\"]"));
            HttpResponse<byte[]> second = post("/v2/models/minilm/infer", request(ids, true));
            assertEquals(200, second.statusCode());
            assertTrue(text(second).contains("\"model_version\":\"2\""));

            String metrics = text(get("/metrics"));
            assertTrue(metrics, metrics.contains("ortex_inference_requests_total{model=\"minilm\",version=\"1\"} 3\n"));
            assertTrue(metrics, metrics.contains("ortex_inference_failures_total{model=\"minilm\",version=\"1\"} 1\n"));
            assertTrue(metrics, metrics.contains("ortex_inference_requests_total{model=\"minilm\",version=\"2\"} 1\n"));
            // two runs of one request each (the refused request never ran), and the CPU EP's device is active
            assertTrue(metrics,
                    metrics.contains("ortex_inference_batch_size_count{model=\"minilm\",version=\"1\"} 2\n"));
            assertTrue(metrics, java.util.regex.Pattern.compile("(?m)^ortex_ep_device_state\\{library=\"[^\"]*\","
                    + "ep=\"CPUExecutionProvider\",device=\"CPU [^\"]*\",state=\"active\"} 1$")
                    .matcher(metrics).find());

            // the status page, served by the bundle on the same whiteboard ("/" redirects to it), with its JSON form;
            // the Web Console plugin is a plain servlet service, registered with no Web Console installed
            HttpResponse<byte[]> root = get("/");
            assertEquals(302, root.statusCode());
            assertEquals("/status", root.headers().firstValue("Location").orElse(""));
            String page = text(get("/status"));
            assertTrue(page, page.contains("<tr class=\"model-row\" data-model-name=\"minilm\">")
                    && page.contains("<svg") && page.contains("data-ep=\"CPUExecutionProvider\""));
            String status = text(get("/status.json"));
            assertTrue(status, status.contains("\"name\":\"minilm\",\"version\":\"2\",\"state\":\"READY\""));
            assertEquals(1, context.getServiceReferences("javax.servlet.Servlet", "(felix.webconsole.label=ortex)")
                    .length);

            // the CPU EP's bundle stops: its drain does not wait for the server, which cannot load the model without
            // it and unloads it; when the bundle starts again the model is loaded again
            org.osgi.framework.Bundle cpu = installed(CPU_BUNDLE);
            long t0 = System.nanoTime();
            cpu.stop();
            long stopMillis = (System.nanoTime() - t0) / 1_000_000;
            assertTrue("stopping the CPU EP took " + stopMillis + " ms", stopMillis < 10_000);
            String index = text(post("/v2/repository/index", ""));
            assertTrue(index, index.contains("\"state\":\"UNAVAILABLE\"") && index.contains("is being removed"));
            assertEquals(503, post("/v2/models/minilm/infer", request(ids, false)).statusCode());
            cpu.start();
            await("the model is served again", () -> get("/v2/models/minilm/ready").statusCode() == 200);
            HttpResponse<byte[]> again = post("/v2/models/minilm/infer", request(ids, true));
            assertEquals(200, again.statusCode());
            float[] after = new float[expected.size()];
            ByteBuffer.wrap(again.body(), Integer.parseInt(again.headers().firstValue("Inference-Header-Content-Length")
                    .orElseThrow()), after.length * 4).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(after);
            assertArrayEquals(expected.floats(), after, 1e-5f);

            // a folder that disappears is unloaded
            deleteTree(models.resolve("minilm"));
            await("the model is gone", () -> get("/v2/models/minilm").statusCode() == 404);
        } finally {
            deleteTree(models);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
