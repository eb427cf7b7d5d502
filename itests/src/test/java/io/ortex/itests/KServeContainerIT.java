package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image of {@code deploy/kubernetes/} without a container runtime: the Dockerfile's sources exist in
 * the repository once the distribution is assembled and are let into the build context, and the image's layout (the
 * distribution without models/, the container's conf/ over it, {@code bin/ortex serve} with no standard input, a
 * model repository where KServe's storage initializer puts it) serves: the ServingRuntime's probe paths and the
 * Prometheus path answer, the model loads, and SIGTERM stops it.
 */
class KServeContainerIT {
    /** The readiness probe's path. */
    static final String READY = "/v2/health/ready";
    /** The liveness probe's path. */
    static final String LIVE = "/v2/health/live";
    /** The Prometheus scrape path. */
    static final String METRICS = "/metrics";

    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    private static final Path DOCKERFILE = KubernetesManifestsTest.KUBERNETES.resolve("Dockerfile");
    private static final Pattern COPY = Pattern.compile("^COPY\\s+(\\S+)\\s+(\\S+)\\s*$");
    private static final String MODEL = "all-minilm-l6-v2";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** One COPY instruction: a source in the build context (the repository root) and its place in the image. */
    private record Copy(String source, String target) {
    }

    private static List<String> instructions() throws IOException {
        return Files.readAllLines(DOCKERFILE).stream().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    }

    private static List<Copy> copies() throws IOException {
        List<Copy> out = new ArrayList<>();
        for (String line : instructions()) {
            Matcher m = COPY.matcher(line);
            if (line.startsWith("COPY")) {
                assertTrue(m.matches(), "a COPY of one source without options: " + line);
                out.add(new Copy(m.group(1), m.group(2)));
            }
        }
        return out;
    }

    private static String instruction(String name) throws IOException {
        return instructions().stream().filter(l -> l.startsWith(name + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("the Dockerfile has no " + name)).substring(name.length() + 1);
    }

    @Test
    void theDockerfileCopiesWhatTheBuildMakes() throws IOException {
        assertTrue(instruction("FROM").matches("eclipse-temurin:\\d+-jre"), instruction("FROM"));
        List<String> ignore = Files.readAllLines(KubernetesManifestsTest.KUBERNETES.resolve("Dockerfile.dockerignore"))
                .stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertEquals("*", ignore.get(0), "the context starts empty");
        List<Copy> copies = copies();
        assertEquals(List.of(new Copy("assembly/target/ortex", "/opt/ortex"),
                new Copy("deploy/kubernetes/conf", "/opt/ortex/conf")), copies);
        for (Copy c : copies) {
            Path source = REPOSITORY.resolve(c.source());
            assertTrue(Files.isDirectory(source), source + " exists (the distribution is assembled by mvn package)");
            assertTrue(ignore.contains("!" + c.source()), c.source() + " is let into the build context");
        }
        // the distribution has what the image runs, and the models are left out of the context
        Path dist = REPOSITORY.resolve("assembly/target/ortex");
        assertTrue(Files.isExecutable(dist.resolve("bin/ortex")));
        assertTrue(Files.isRegularFile(dist.resolve("conf/config.properties")));
        assertTrue(ignore.contains("assembly/target/ortex/models"), ignore.toString());
        try (Stream<Path> bundles = Files.list(dist.resolve("bundle"))) {
            List<String> names = bundles.map(p -> p.getFileName().toString()).toList();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("io.ortex.serve-")), names.toString());
            assertTrue(names.stream().anyMatch(n -> n.startsWith("org.apache.felix.http.jetty12-")), names.toString());
        }
        assertEquals("[\"/opt/ortex/bin/ortex\"]", instruction("ENTRYPOINT"));
        assertEquals("[\"serve\"]", instruction("CMD"));
        assertEquals("8080", instruction("EXPOSE"));
    }

    @Test
    void theImageLayoutServesTheProbesAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        // the image: the distribution without models/ (left out of the build context), then conf/ over its conf/
        Path home = ShellProcess.copyDistribution(dir.resolve("opt/ortex"));
        for (Copy c : copies()) {
            if (!c.source().startsWith("assembly/")) {
                copyTree(REPOSITORY.resolve(c.source()), home.resolve(Path.of("/opt/ortex").relativize(Path.of(
                        c.target())).toString()));
            }
        }
        // what the storage initializer leaves in /mnt/models for a storageUri holding a model repository
        Path models = dir.resolve("mnt/models");
        Path demo = REPOSITORY.resolve("assembly/target/ortex/models/" + MODEL + "/1/model.onnx");
        Files.createDirectories(models.resolve(MODEL + "/1"));
        Files.copy(demo, models.resolve(MODEL + "/1/model.onnx"));
        // and for a storageUri naming one file: a model file at the top, which is not served, with a warning
        Files.copy(demo, models.resolve("model.onnx"));
        // here, unlike in a pod: the models folder of the test, and the loopback interface on a free port
        int port = FreePorts.next();
        rewrite(home.resolve("conf/io.ortex.serve.cfg"), "models.dir=/mnt/models", "models.dir=" + models);
        rewrite(home.resolve("conf/custom.properties"), "org.apache.felix.http.host=0.0.0.0",
                "org.apache.felix.http.host=127.0.0.1");
        rewrite(home.resolve("conf/custom.properties"), "org.osgi.service.http.port=8080",
                "org.osgi.service.http.port=" + port);

        JsonNode container = KubernetesManifestsTest.manifest("servingruntime.yaml").at("/spec/containers/0");
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/ortex").toString()));
        container.path("args").forEach(a -> command.add(a.asText()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("ORTEX_MODULE_PATH");
        pb.environment().put("JAVA_OPTS", container.at("/env/0/value").asText());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Path log = dir.resolve("serve.log");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process server = pb.start();
        try {
            String base = "http://127.0.0.1:" + port;
            for (String path : List.of(container.at("/readinessProbe/httpGet/path").asText(),
                    container.at("/livenessProbe/httpGet/path").asText())) {
                awaitStatus(server, log, base + path, 200);
            }
            awaitStatus(server, log, base + "/v2/models/" + MODEL + "/ready", 200);
            String metricsPath = KubernetesManifestsTest.manifest("servingruntime.yaml")
                    .at("/spec/annotations").path("prometheus.io/path").asText();
            HttpResponse<String> metrics = get(base + metricsPath);
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
                    metrics.headers().toString());
            assertTrue(metrics.body().contains("# TYPE "), metrics.body());
            // no console: standard input at its end did not stop the server
            assertTrue(server.isAlive(), Files.readString(log));
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(output.contains("model '" + MODEL + "' version 1 loaded"), output);
            assertTrue(output.contains("ortex: WARNING: 'model.onnx' in the models folder " + models
                    + " is not served: a model is a folder NAME/VERSION/model.onnx\n"), output);
            assertEquals(404, get(base + "/v2/models/model.onnx").statusCode());
            // Felix HTTP started once, on the address and port of conf/custom.properties
            assertEquals(1, output.split("Started ServerConnector", -1).length - 1, output);
            assertTrue(output.contains("{127.0.0.1:" + port + "}"), output);
        } finally {
            server.destroy();  // SIGTERM, as the kubelet stops a container
            boolean ended = server.waitFor(30, TimeUnit.SECONDS);
            if (!ended) {
                server.destroyForcibly();
            }
            assertTrue(ended, "the server did not stop within 30 s of SIGTERM:\n" + Files.readString(log));
        }
    }

    @Test
    void serveTakesNoArgumentsAndNeedsTheFramework() throws Exception {
        Path ortex = REPOSITORY.resolve("assembly/target/ortex/bin/ortex");
        assertRefused(List.of(ortex.toString(), "serve", "--port", "9000"), false,
                "ortex: serve takes no arguments (the server's settings are in conf/)");
        assertRefused(List.of(ortex.toString(), "serve"), true,
                "ortex: serve needs the OSGi framework's HTTP service: run it without ORTEX_MODULE_PATH=1");
    }

    private static void assertRefused(List<String> command, boolean modulePath, String message) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        if (modulePath) {
            pb.environment().put("ORTEX_MODULE_PATH", "1");
        } else {
            pb.environment().remove("ORTEX_MODULE_PATH");
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command.toString());
        assertEquals(2, p.exitValue(), err);
        assertEquals("", out);
        assertEquals(message + "\n", err);
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void awaitStatus(Process server, Path log, String url, int status) throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                if (get(url).statusCode() == status) {
                    return;
                }
            } catch (IOException notYet) {
                // the server is not listening yet
            }
            if (!server.isAlive() || System.currentTimeMillis() > end) {
                throw new AssertionError("GET " + url + " never answered " + status + "; output:\n"
                        + Files.readString(log));
            }
            Thread.sleep(100);
        }
    }

    private static void rewrite(Path file, String line, String replacement) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
        assertTrue(lines.contains(line), file + " has the line " + line);
        Files.write(file, lines.stream().map(l -> l.equals(line) ? replacement : l).toList(),
                StandardCharsets.ISO_8859_1);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
