package io.ortex.serve.internal.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.serve.internal.InferRequestDecoder;
import io.ortex.serve.internal.InferenceCore;
import io.ortex.serve.internal.InferenceHandler;
import io.ortex.serve.internal.Metrics;
import io.ortex.serve.internal.ModelRepository;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * The server's routes on a real HTTP server for the status page's tests: the JDK's HTTP server on the loopback
 * interface hands {@code /v2/...} and {@code /metrics} to the protocol's handler and the rest to the status
 * handler, as the bundle's two whiteboard servlets do; a real repository of real models run by the runtime with the
 * CPU EP and the example EP's virtual NPU.
 */
final class StatusServer implements AutoCloseable {
    /** A node name with markup, quotes and a line break: the page must show it, not obey it. */
    static final String HOSTILE = "sig<script>alert(1)</script>\"q'\nline<b>2</b>&amp;";
    /** The model split between the example EP (MatMul, Add, Relu) and the CPU EP (Sigmoid, Tanh, Mul). */
    static final String SPLIT = "split";

    final Environment environment;
    final ModelRepository repository;
    final Metrics metrics = new Metrics();
    final StatusHandler status;
    private final InferenceHandler inference;
    private final HttpServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /**
     * Starts the server on the models of a folder.
     *
     * @param models the models folder, already filled
     */
    StatusServer(Path models) throws IOException {
        environment = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
        repository = new ModelRepository(environment, models);
        repository.scan();
        InferenceCore core = new InferenceCore(repository, metrics, "0.1.0-test");
        inference = new InferenceHandler(core, new InferRequestDecoder(1 << 24));
        status = new StatusHandler(new StatusCollector(environment, repository, metrics, "0.1.0-test"));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::serve);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
    }

    /**
     * Writes the split model: {@code y = Mul(Tanh(Sigmoid(Relu(x W + b))), Relu(x W + b))}, {@code x} of
     * {@code [N, 4]}; its Sigmoid node bears {@link #HOSTILE} as its name.
     *
     * @param models the models folder
     */
    static void writeSplitModel(Path models) throws IOException {
        float[] w = new float[16];
        for (int i = 0; i < w.length; i++) {
            w[i] = (i % 5 - 2) * 0.25f;
        }
        Path dir = models.resolve(SPLIT);
        new ModelBuilder().opset(17)
                .input("x", ElementType.FLOAT, -1, 4).output("y", ElementType.FLOAT, -1, 4)
                .floats("W", new long[] {4, 4}, w).floats("b", new long[] {4}, 0.1f, -0.2f, 0.3f, 0f)
                .node("MatMul", "matmul", List.of("x", "W"), List.of("h1"))
                .node("Add", "bias", List.of("h1", "b"), List.of("h2"))
                .node("Relu", "relu", List.of("h2"), List.of("h3"))
                .node("Sigmoid", HOSTILE, List.of("h3"), List.of("h4"))
                .node("Tanh", "tanh", List.of("h4"), List.of("h5"))
                .node("Mul", "gate", List.of("h5", "h3"), List.of("y"))
                .write(dir.resolve("1").resolve("model.onnx"));
        Files.writeString(dir.resolve("config.properties"), "ep=ExampleExecutionProvider,CPUExecutionProvider\n");
    }

    /** A request to the split model. */
    static String splitRequest(int seed) {
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            data.append(i == 0 ? "" : ",").append((seed + i) % 7 - 3);
        }
        return "{\"inputs\":[{\"name\":\"x\",\"datatype\":\"FP32\",\"shape\":[2,4],\"data\":[" + data + "]}]}";
    }

    private void serve(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getRawPath();
        byte[] body;
        try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
        }
        io.ortex.serve.internal.HttpExchange.Reply reply = path.startsWith("/v2") || path.equals("/metrics")
                ? inference.handle(new io.ortex.serve.internal.HttpExchange.Request(ex.getRequestMethod(), path,
                        ex.getRequestHeaders().getFirst(InferenceHandler.HEADER_LENGTH), body))
                : status.handle(ex.getRequestMethod(), path);
        ex.getResponseHeaders().set("Content-Type", reply.contentType());
        reply.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
        ex.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(reply.body());
        }
    }

    /**
     * Gets the URI of a path on the server.
     *
     * @param path the path
     * @return the URI
     */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
        repository.close();
        environment.close();
    }
}
