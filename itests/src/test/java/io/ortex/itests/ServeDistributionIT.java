package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import inference.GRPCInferenceServiceGrpc;
import inference.GRPCInferenceServiceGrpc.GRPCInferenceServiceBlockingStub;
import inference.GrpcPredictV2.InferTensorContents;
import inference.GrpcPredictV2.ModelInferRequest;
import inference.GrpcPredictV2.ModelInferRequest.InferInputTensor;
import inference.GrpcPredictV2.ModelInferResponse;
import inference.GrpcPredictV2.ModelMetadataRequest;
import inference.GrpcPredictV2.ServerReadyRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user starts it ({@code bin/ortex}, the shell) serves its {@code models/} folder over the Open
 * Inference Protocol: the demo model answers at once, a model folder copied in while it runs is served, the answers
 * equal a direct session run's, over REST and over gRPC (through grpc-java's stub generated from the protocol's
 * {@code .proto}), and {@code ortex:models} lists both.
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

    private static final long[] IDS = {101, 7592, 2088, 102};

    /** The demo model's three inputs, in typed contents or raw. */
    private static ModelInferRequest grpcRequest(String model, boolean raw) {
        ModelInferRequest.Builder b = ModelInferRequest.newBuilder().setModelName(model).setId("g")
                .addOutputs(ModelInferRequest.InferRequestedOutputTensor.newBuilder().setName("last_hidden_state"));
        long[][] values = {IDS, {1, 1, 1, 1}, {0, 0, 0, 0}};
        String[] names = {"input_ids", "attention_mask", "token_type_ids"};
        for (int i = 0; i < names.length; i++) {
            InferInputTensor.Builder in = InferInputTensor.newBuilder().setName(names[i]).setDatatype("INT64")
                    .addShape(1).addShape(4);
            if (raw) {
                ByteBuffer bytes = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
                bytes.asLongBuffer().put(values[i]);
                b.addRawInputContents(ByteString.copyFrom(bytes.array()));
            } else {
                InferTensorContents.Builder c = InferTensorContents.newBuilder();
                for (long v : values[i]) {
                    c.addInt64Contents(v);
                }
                in.setContents(c);
            }
            b.addInputs(in);
        }
        return b.build();
    }

    /** ModelInfer over gRPC, typed and raw, answers what the session answers; a bad request gets its status. */
    private static void checkGrpc(int port, float[] expected) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try {
            GRPCInferenceServiceBlockingStub stub = GRPCInferenceServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(60, TimeUnit.SECONDS);
            assertTrue(stub.serverReady(ServerReadyRequest.getDefaultInstance()).getReady());
            assertEquals(List.of(-1L, -1L), stub.modelMetadata(ModelMetadataRequest.newBuilder()
                    .setName("all-minilm-l6-v2").build()).getInputs(0).getShapeList());

            ModelInferResponse typed = stub.modelInfer(grpcRequest("all-minilm-l6-v2", false));
            assertEquals("g", typed.getId());
            assertEquals(List.of(1L, 4L, 384L), typed.getOutputs(0).getShapeList());
            List<Float> values = typed.getOutputs(0).getContents().getFp32ContentsList();
            float[] got = new float[values.size()];
            for (int i = 0; i < got.length; i++) {
                got[i] = values.get(i);
            }
            assertArrayEquals(expected, got, 1e-5f);

            ModelInferResponse raw = stub.modelInfer(grpcRequest("all-minilm-l6-v2", true));
            float[] rawGot = new float[expected.length];
            raw.getRawOutputContents(0).asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer()
                    .get(rawGot);
            assertArrayEquals(expected, rawGot, 1e-5f);

            ModelInferRequest wrong = ModelInferRequest.newBuilder(grpcRequest("all-minilm-l6-v2", false))
                    .setInputs(0, grpcRequest("all-minilm-l6-v2", false).getInputs(0).toBuilder().setDatatype("INT32"))
                    .build();
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.modelInfer(wrong));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
            assertEquals("input 'input_ids': datatype INT32 takes contents.int_contents, but the request has "
                    + "contents.int64_contents", e.getStatus().getDescription());
            StatusRuntimeException missing = assertThrows(StatusRuntimeException.class,
                    () -> stub.modelInfer(grpcRequest("no-such-model", false)));
            assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode());
            assertEquals(expected.length, stub.modelInfer(grpcRequest("all-minilm-l6-v2", false)).getOutputs(0)
                    .getContents().getFp32ContentsCount());
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
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
        int port = FreePorts.next();
        try (ShellProcess shell = ShellProcess.start(home, "-Dorg.osgi.service.http.port=" + port)) {
            awaitStatus(port, "/v2/health/ready", 200);
            HttpResponse<byte[]> r = send(port, "POST", "/v2/models/all-minilm-l6-v2/infer", INFER);
            assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
            assertArrayEquals(expected.floats(), binaryOutput(r, expected.size()), 1e-5f);
            checkGrpc(ShellProcess.grpcPort(home), expected.floats());

            // a model folder copied in under a hidden name, then renamed, is served within seconds
            Path staging = Files.createDirectories(home.resolve("models/.embed/7"));
            Files.copy(demo, staging.resolve("model.onnx"));
            Files.move(home.resolve("models/.embed"), home.resolve("models/embed"), StandardCopyOption.ATOMIC_MOVE);
            awaitStatus(port, "/v2/models/embed/versions/7/ready", 200);
            HttpResponse<byte[]> copied = send(port, "POST", "/v2/models/embed/infer", INFER);
            assertEquals(200, copied.statusCode());
            assertArrayEquals(expected.floats(), binaryOutput(copied, expected.size()), 1e-5f);

            String models = shell.run("ortex:models");
            assertTrue(models.matches("(?s).*all-minilm-l6-v2 +1 +READY +0 +0 +CPUExecutionProvider.*"), models);
            assertTrue(models.matches("(?s).*embed +7 +READY .*"), models);
            assertTrue(shell.run("ortex:unload embed").contains("model 'embed' unloaded"));
            assertEquals(503, send(port, "POST", "/v2/models/embed/infer", INFER).statusCode());
            String metrics = new String(send(port, "GET", "/metrics", null).body(), StandardCharsets.UTF_8);
            assertTrue(metrics.contains("ortex_inference_requests_total{model=\"embed\",version=\"7\"} 1\n"), metrics);
            // REST and gRPC count in the same metrics: 1 REST, 4 gRPC requests (one refused)
            assertTrue(metrics.contains("ortex_inference_requests_total{model=\"all-minilm-l6-v2\",version=\"1\"} 5\n"),
                    metrics);
            assertTrue(metrics.contains("ortex_inference_failures_total{model=\"all-minilm-l6-v2\",version=\"1\"} 1\n"),
                    metrics);
        }
    }
}
