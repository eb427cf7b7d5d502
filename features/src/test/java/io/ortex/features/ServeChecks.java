package io.ortex.features;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checks of {@link KarafFeaturesIT} for feature {@code ortex-serve}: a model folder written into the configured
 * models folder is served by Pax Web over the Open Inference Protocol, and its answers are the model's.
 */
final class ServeChecks {
    /** The served model's name, its folder in the models folder. */
    static final String MODEL = "tiny-add-relu";
    private static final float[] X = {1, -2, 3, -4, 5, -6};
    private static final float[] Y = {0.5f, 1, -4, 2, 0, 7};
    private static final Pattern OUT_DATA = Pattern.compile(
            "\"name\":\"out\",\"datatype\":\"FP32\",\"shape\":\\[2,3],\"data\":\\[([^\\]]*)]");

    /** An HTTP reply: the status and the body as text. */
    record Reply(int status, String body) {
    }

    private ServeChecks() {
    }

    /**
     * Writes the tiny model as {@code <models>/tiny-add-relu/1/model.onnx}, under a hidden name first and then renamed,
     * as a user copies a model in.
     *
     * @param models the models folder the server is configured with
     */
    static void writeModel(Path models) throws IOException {
        Path staging = models.resolve("." + MODEL);
        Files.createDirectories(staging.resolve("1"));
        Files.write(staging.resolve("1").resolve("model.onnx"), TinyOnnx.bytes());
        Files.move(staging, models.resolve(MODEL), StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Waits for the server and the model to be ready, checks the model's metadata, runs it over HTTP and compares the
     * outputs with what the model computes; a request without input y gets the protocol's 400 naming it.
     *
     * @param port the HTTP port Pax Web listens on
     */
    static void inferOverHttp(int port) throws Exception {
        String base = "http://127.0.0.1:" + port;
        awaitStatus(base + "/v2/health/ready", 200);
        awaitStatus(base + "/v2/models/" + MODEL + "/ready", 200);
        assertEquals(200, send("GET", base + "/v2/health/live", null).status());

        Reply meta = send("GET", base + "/v2/models/" + MODEL, null);
        assertEquals(meta.body(), 200, meta.status());
        assertTrue(meta.body(), meta.body().contains("{\"name\":\"x\",\"datatype\":\"FP32\",\"shape\":[2,3]}"));
        assertTrue(meta.body(), meta.body().contains("{\"name\":\"out\",\"datatype\":\"FP32\",\"shape\":[2,3]}"));

        Reply infer = send("POST", base + "/v2/models/" + MODEL + "/infer", "{\"inputs\":["
                + input("x", X) + "," + input("y", Y) + "]}");
        assertEquals(infer.body(), 200, infer.status());
        Matcher m = OUT_DATA.matcher(infer.body());
        if (!m.find()) {
            fail("no FP32 [2,3] output 'out' with data in " + infer.body());
        }
        float[] out = new float[X.length];
        String[] values = m.group(1).split(",");
        assertEquals(infer.body(), out.length, values.length);
        for (int i = 0; i < out.length; i++) {
            out[i] = Float.parseFloat(values[i]);
        }
        assertArrayEquals(TinyOnnx.expected(X, Y), out, 0f);

        Reply wrong = send("POST", base + "/v2/models/" + MODEL + "/infer", "{\"inputs\":["
                + input("x", X) + "," + input("z", Y) + "]}");
        assertEquals(wrong.body(), 400, wrong.status());
        assertTrue(wrong.body(), wrong.body().startsWith("{\"error\":")
                && wrong.body().contains("input 'y' is missing"));

        String metrics = send("GET", base + "/metrics", null).body();
        assertTrue(metrics, metrics.contains("ortex_inference_requests_total{model=\"" + MODEL + "\",version=\"1\"}"));
    }

    private static String input(String name, float[] data) {
        StringBuilder b = new StringBuilder("{\"name\":\"").append(name)
                .append("\",\"datatype\":\"FP32\",\"shape\":[2,3],\"data\":[");
        for (int i = 0; i < data.length; i++) {
            b.append(i == 0 ? "" : ",").append(data[i]);
        }
        return b.append("]}").toString();
    }

    private static void awaitStatus(String url, int status) throws Exception {
        long end = System.currentTimeMillis() + 30_000;
        Object last = null;
        while (true) {
            try {
                Reply r = send("GET", url, null);
                if (r.status() == status) {
                    return;
                }
                last = r;
            } catch (IOException notYet) {
                last = notYet;  // Pax Web is not listening yet
            }
            if (System.currentTimeMillis() > end) {
                fail("GET " + url + " did not answer " + status + " within 30 s; last: " + last);
            }
            Thread.sleep(100);
        }
    }

    private static Reply send(String method, String url, String body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout(30_000);
        c.setRequestMethod(method);
        if (body != null) {
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", "application/json");
            try (OutputStream out = c.getOutputStream()) {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
        }
        try {
            int status = c.getResponseCode();
            InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            byte[] bytes = in == null ? new byte[0] : in.readAllBytes();
            return new Reply(status, new String(bytes, StandardCharsets.UTF_8));
        } finally {
            c.disconnect();
        }
    }
}
