package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import io.ortex.itests.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The status page as a Felix Web Console plugin, in a real Felix with Felix HTTP Jetty and Felix Web Console 4.9
 * (javax.servlet): Web Console finds the server's plugin service by its {@code felix.webconsole.label} and shows the
 * status of a served model inside its own page at {@code /system/console/ortex}, and the plugin's JSON form beside it.
 */
@RunWith(PaxExam.class)
public class WebConsoleIT extends OsgiTestSupport {
    private static final String PORT = "org.osgi.service.http.port";
    private static final String AUTH = "Basic " + Base64.getEncoder().encodeToString(
            "admin:admin".getBytes(StandardCharsets.UTF_8));  // Web Console's default user

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
        o.add(mavenBundle("org.apache.felix", "org.apache.felix.http.servlet-api",
                property("felix.http.servlet.api.version")));
        o.add(mavenBundle("commons-io", "commons-io", property("commons.io.version")));
        o.add(mavenBundle("commons-fileupload", "commons-fileupload", property("commons.fileupload.version")));
        o.add(mavenBundle("org.apache.felix", "org.apache.felix.http.jetty12", property("felix.http.jetty.version")));
        // Felix Web Console and what it imports: commons-io 1.x, the inventory API, the OWASP encoder, the log API
        o.add(mavenBundle("commons-io", "commons-io", "1.4"));
        o.add(mavenBundle("org.osgi", "org.osgi.service.log", "1.3.0"));
        o.add(mavenBundle("org.apache.felix", "org.apache.felix.inventory", "1.1.0"));
        o.add(mavenBundle("org.owasp.encoder", "encoder", "1.2.3"));
        o.add(mavenBundle("org.apache.felix", "org.apache.felix.webconsole", "4.9.6"));
        o.add(bundle(ortexJar("bundles/serve", "io.ortex.serve")));
        return o.toArray(new Option[0]);
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + context.getProperty(PORT)
                + path)).timeout(Duration.ofSeconds(60)).header("Authorization", AUTH);
        b = body == null ? b.GET() : b.header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private void configureServer(Path models) throws Exception {
        Dictionary<String, Object> d = new Hashtable<>();
        d.put("models.dir", models.toString());
        d.put("poll.ms", 200L);
        d.put("grpc.port", 0);
        ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> t = new ServiceTracker<>(context,
                ConfigurationAdmin.class, null);
        t.open();
        try {
            t.waitForService(10_000).getConfiguration("io.ortex.serve", "?").update(d);
        } finally {
            t.close();
        }
    }

    private boolean answers(String path, int status) {
        try {
            return send("GET", path, null).statusCode() == status;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    public void webConsoleShowsTheStatusOfServedModels() throws Exception {
        Path models = Files.createTempDirectory(Path.of("target"), "console-models").toAbsolutePath();
        Files.createDirectories(models.resolve("tiny/1"));
        Files.write(models.resolve("tiny/1/model.onnx"), TinyModel.bytes());
        configureServer(models);
        await(60_000, "the model is ready", () -> answers("/v2/models/tiny/ready", 200));
        String request = "{\"inputs\":[{\"name\":\"x\",\"datatype\":\"FP32\",\"shape\":[1,4],"
                + "\"data\":[1,2,3,4]}]}";
        assertEquals(200, send("POST", "/v2/models/tiny/infer", request).statusCode());
        await(60_000, "Web Console lists the plugin", () -> answers("/system/console/ortex", 200));

        HttpResponse<String> page = send("GET", "/system/console/ortex", null);
        String html = page.body();
        assertTrue(html, html.contains("<div class=\"ortex-status\" data-json=\"/system/console/ortex/status.json\""));
        assertTrue("inside Web Console's own page: " + html, html.indexOf("<html") < html.indexOf("ortex-status")
                && html.contains("Web Console"));
        assertTrue(html, html.contains("<tr class=\"model-row\" data-model-name=\"tiny\">")
                && html.contains("data-field=\"requests\">1</td>"));
        assertTrue(html, html.contains("<g class=\"node\" data-node=\"mm\" data-op=\"MatMul\" "
                + "data-ep=\"CPUExecutionProvider\">"));

        HttpResponse<String> json = send("GET", "/system/console/ortex/status.json", null);
        assertEquals(json.body(), 200, json.statusCode());
        assertTrue(json.body(), json.body().contains("\"name\":\"tiny\",\"version\":\"1\",\"state\":\"READY\""));
        // the server's own page is there too, outside the console
        assertTrue(answers("/status", 200));
    }
}
