package io.ortex.serve.internal.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.ortex.api.Names;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The status page and its JSON form over real HTTP, on a model split between the example EP and the CPU EP. */
class StatusPageTest {
    private static final Pattern NODE = Pattern.compile(
            "<g class=\"node\" data-node=\"([^\"]*)\" data-op=\"([^\"]*)\" data-ep=\"([^\"]*)\">"
            + "<title>[^<]*</title><rect [^>]*fill=\"(#[0-9a-f]{6})\"/>");
    private static final Pattern SWATCH = Pattern.compile(
            "<span class=\"swatch\" data-ep=\"([^\"]*)\" data-colour=\"(#[0-9a-f]{6})\"");

    @TempDir
    Path models;

    private StatusServer server;

    @BeforeEach
    void start() throws IOException {
        StatusServer.writeSplitModel(models);
        server = new StatusServer(models);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void drawsEachNodeInItsEpsColourAndEscapesNames() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertEquals(200, server.post("/v2/models/split/infer", StatusServer.splitRequest(i)).statusCode());
        }
        HttpResponse<String> r = server.get("/status");
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        String html = r.body();
        Map<String, String> legend = new HashMap<>();
        for (Matcher m = SWATCH.matcher(html); m.find(); ) {
            legend.put(m.group(1), m.group(2));
        }
        assertNotEquals(legend.get("CPUExecutionProvider"), legend.get("ExampleExecutionProvider"), html);
        Map<String, String> epOfOp = new HashMap<>();
        int nodes = 0;
        for (Matcher m = NODE.matcher(html); m.find(); nodes++) {
            epOfOp.put(m.group(2), m.group(3));
            assertEquals(legend.get(m.group(3)), m.group(4), "the fill of node " + m.group(1));
        }
        assertEquals(6, nodes, html);
        for (String op : List.of("MatMul", "Add", "Relu")) {
            assertEquals("ExampleExecutionProvider", epOfOp.get(op), op);
        }
        for (String op : List.of("Sigmoid", "Tanh", "Mul")) {
            assertEquals("CPUExecutionProvider", epOfOp.get(op), op);
        }
        // the hostile name is text: no element of it, no line break in an attribute, shown escaped
        assertFalse(html.contains("<script>alert"), html);
        assertFalse(html.contains("<b>2</b>"), html);
        assertTrue(html.contains("data-node=\"" + Html.escape(StatusServer.HOSTILE) + "\""), html);
        assertTrue(Html.escape(StatusServer.HOSTILE).contains("\\n"));
        assertEquals(1, html.split("<script>", -1).length - 1, "only the page's own script");
        assertTrue(html.contains("data-field=\"requests\">3</td>"), html);
        assertTrue(html.contains("<h2>Hardware devices</h2>") && html.contains("<td>CPU</td>"), html);
        assertTrue(html.contains("class=\"state state-active\""), html);
    }

    @Test
    void jsonHoldsWhatThePageShows() throws Exception {
        server.post("/v2/models/split/infer", StatusServer.splitRequest(1));
        server.post("/v2/models/split/infer", "{\"inputs\":[]}");  // a failed request
        HttpResponse<String> r = server.get("/status.json");
        assertEquals(200, r.statusCode());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        Map<String, String> fields = flatten(r.body());
        assertEquals("split", fields.get("models.0.name"));
        assertEquals("READY", fields.get("models.0.state"));
        assertEquals("2", fields.get("models.0.stats.requests"));
        assertEquals("1", fields.get("models.0.stats.failures"));
        assertEquals("3", fields.get("models.0.nodes_per_ep.ExampleExecutionProvider"));
        assertEquals("3", fields.get("models.0.nodes_per_ep.CPUExecutionProvider"));
        assertEquals(StatusServer.HOSTILE, fields.get("models.0.assignment.3.node"));
        assertEquals("CPUExecutionProvider", fields.get("models.0.assignment.3.ep"));
        String session = fields.get("models.0.session");
        assertFalse(session.isEmpty());
        boolean held = false;
        for (int i = 0; fields.containsKey("ep_devices." + i + ".ep"); i++) {
            assertEquals("active", fields.get("ep_devices." + i + ".state"));
            for (int h = 0; fields.containsKey("ep_devices." + i + ".holders." + h); h++) {
                held |= fields.get("ep_devices." + i + ".holders." + h).equals(session)
                        && fields.get("ep_devices." + i + ".ep").equals("ExampleExecutionProvider");
            }
        }
        assertTrue(held, "the example EP's device lists the model's session as a holder: " + r.body());
        assertTrue(fields.containsKey("hardware_devices.0.type"), r.body());
        String html = server.get("/status").body();
        assertTrue(html.contains("data-signature=\"" + fields.get("signature") + "\""), "same snapshot data");
    }

    @Test
    void redirectsTheRootAndRefusesOtherPathsAndMethods() throws Exception {
        HttpResponse<String> root = server.get("/");
        assertEquals(302, root.statusCode());
        assertEquals("/status", root.headers().firstValue("Location").orElse(""));
        assertEquals(404, server.get("/nothing").statusCode());
        assertEquals(405, server.post("/status", "").statusCode());
    }

    @Test
    void snapshotsWhileRequestsRunCountEveryRequest() throws Exception {
        int clients = 4;
        int perClient = 25;
        ExecutorService pool = Executors.newFixedThreadPool(clients + 2);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int seed = c;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perClient; i++) {
                        assertEquals(200, server.post("/v2/models/split/infer",
                                StatusServer.splitRequest(seed * 100 + i)).statusCode());
                    }
                    return null;
                }));
            }
            for (int c = 0; c < 2; c++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        HttpResponse<String> page = server.get(i % 2 == 0 ? "/status" : "/status.json");
                        assertEquals(200, page.statusCode());
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, String> fields = flatten(server.get("/status.json").body());
        assertEquals(Integer.toString(clients * perClient), fields.get("models.0.stats.requests"));
        assertEquals("0", fields.get("models.0.stats.failures"));
        assertTrue(Double.parseDouble(fields.get("models.0.stats.requests_per_second")) > 0);
        assertTrue(Double.parseDouble(fields.get("models.0.stats.p99_ms"))
                >= Double.parseDouble(fields.get("models.0.stats.p50_ms")));
    }

    @Test
    void showsTheEscapedNameInMessages() {
        assertEquals("a&lt;b&gt;&quot;c&#39;\\nd&amp;", Html.escape("a<b>\"c'\nd&"));
        assertEquals(Html.escape(Names.oneLine("x\u202ey")), Html.escape("x\u202ey"));
    }

    /** Reads a JSON document into dotted paths (array elements by index) and their scalar texts. */
    static Map<String, String> flatten(String json) throws IOException {
        Map<String, String> out = new HashMap<>();
        try (JsonParser p = new JsonFactory().createParser(json)) {
            walk(p, p.nextToken(), "", out);
        }
        return out;
    }

    private static void walk(JsonParser p, JsonToken t, String path, Map<String, String> out) throws IOException {
        String prefix = path.isEmpty() ? "" : path + ".";
        if (t == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                walk(p, p.nextToken(), prefix + name, out);
            }
        } else if (t == JsonToken.START_ARRAY) {
            int i = 0;
            for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                walk(p, e, prefix + i++, out);
            }
        } else {
            out.put(path, p.getText());
        }
    }
}
