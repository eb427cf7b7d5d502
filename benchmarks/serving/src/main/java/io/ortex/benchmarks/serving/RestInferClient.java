package io.ortex.benchmarks.serving;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The REST client: the JDK's {@link HttpClient} (HTTP/1.1, one pooled connection per concurrent request) posts the
 * inputs as JSON tensors to {@code /v2/models/NAME/infer} on 127.0.0.1 and asks for {@code last_hidden_state} in the
 * binary tensor data extension, which it reads back as little-endian floats. Thread safe.
 */
final class RestInferClient implements InferClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final int port;
    private final String[] bodies;

    /**
     * Creates a client and writes each row's request body once.
     *
     * @param port the server's HTTP port on 127.0.0.1
     * @param tokens the rows
     */
    RestInferClient(int port, TokenRows tokens) {
        this.port = port;
        this.bodies = new String[tokens.count()];
        for (int r = 0; r < bodies.length; r++) {
            long[][] values = Inputs.values(tokens, r);
            StringBuilder sb = new StringBuilder("{\"inputs\":[");
            for (int i = 0; i < Inputs.NAMES.length; i++) {
                sb.append(i == 0 ? "" : ",").append("{\"name\":\"").append(Inputs.NAMES[i])
                        .append("\",\"datatype\":\"INT64\",\"shape\":[1,").append(tokens.length())
                        .append("],\"data\":[")
                        .append(Arrays.stream(values[i]).mapToObj(Long::toString).collect(Collectors.joining(",")))
                        .append("]}");
            }
            sb.append("],\"outputs\":[{\"name\":\"").append(ExpectedOutputs.OUTPUT)
                    .append("\",\"parameters\":{\"binary_data\":true}}]}");
            bodies[r] = sb.toString();
        }
    }

    @Override
    public float[] infer(String model, int row) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v2/models/" + model
                + "/infer")).timeout(TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(bodies[row])).build();
        HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
            throw new IOException("HTTP " + r.statusCode() + ": " + new String(r.body(), StandardCharsets.UTF_8));
        }
        String header = r.headers().firstValue("Inference-Header-Content-Length").orElseThrow(
                () -> new IOException("no Inference-Header-Content-Length in the answer: "
                        + new String(r.body(), StandardCharsets.UTF_8)));
        int offset = Integer.parseInt(header);
        int count = (r.body().length - offset) / Float.BYTES;
        float[] values = new float[count];
        ByteBuffer.wrap(r.body(), offset, count * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer()
                .get(values);
        return values;
    }

    @Override
    public String protocol() {
        return "REST";
    }

    @Override
    public void close() {
        // HttpClient's connections close when it is collected (close() exists from Java 21 only)
    }
}
