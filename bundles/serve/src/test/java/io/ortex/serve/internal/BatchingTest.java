package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.serve.internal.HttpExchange.Reply;
import io.ortex.serve.internal.HttpExchange.Request;
import io.ortex.testing.Attributes;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic batching on a real repository of real ONNX models run by the runtime and the CPU EP: concurrent requests
 * are merged and split back with the results of unbatched runs, requests that must not merge are kept apart, an
 * error of a merged run reaches each of its requests, a full queue is refused, and a version swap or an unload
 * answers every queued request.
 */
class BatchingTest {
    @TempDir
    Path models;

    private Environment environment;
    private ModelRepository repository;
    private Metrics metrics;
    private InferenceCore core;
    private final ExecutorService clients = Executors.newFixedThreadPool(16);

    /**
     * {@code x [batch, len]} gives {@code y = Softmax(x, axis 1)} of {@code [batch, len]} and
     * {@code s = ReduceSum(x, axis 1)} of {@code [batch]}: rows are independent, the second dimension is symbolic too.
     */
    private static void writeRowsModel(Path file) throws IOException {
        ModelProto.Builder model = new ModelBuilder().opset(17)
                .input("x", ElementType.FLOAT, -1, -1)
                .output("y", ElementType.FLOAT, -1, -1).output("s", ElementType.FLOAT, -1)
                .longs("axes", new long[] {1}, 1)
                .node("Softmax", "softmax", List.of("x"), List.of("y"), Attributes.attr("axis", 1L))
                .node("ReduceSum", "sum", List.of("x", "axes"), List.of("s"), Attributes.attr("keepdims", 0L))
                .proto().toBuilder();
        // the second dimension is its own symbol, not the batch's
        model.getGraphBuilder().getInputBuilder(0).getTypeBuilder().getTensorTypeBuilder().getShapeBuilder()
                .getDimBuilder(1).setDimParam("len");
        model.getGraphBuilder().getOutputBuilder(0).getTypeBuilder().getTensorTypeBuilder().getShapeBuilder()
                .getDimBuilder(1).setDimParam("len");
        Files.createDirectories(file.getParent());
        Files.write(file, model.build().toByteArray());
    }

    /** {@code g = GatherElements(x [batch, 4], i [batch, 1], axis 1)}: an index out of range fails the run. */
    private static void writePickModel(Path file) throws IOException {
        new ModelBuilder().opset(17)
                .input("x", ElementType.FLOAT, -1, 4).input("i", ElementType.INT64, -1, 1)
                .output("g", ElementType.FLOAT, -1, 1)
                .node("GatherElements", "pick", List.of("x", "i"), List.of("g"), Attributes.attr("axis", 1L))
                .write(file);
    }

    private void configure(String model, String config) throws IOException {
        Files.createDirectories(models.resolve(model));
        Files.writeString(models.resolve(model).resolve(ModelConfig.FILE), config);
    }

    @BeforeEach
    void start() {
        environment = Environment.create();
        repository = new ModelRepository(environment, models);
        metrics = new Metrics();
        core = new InferenceCore(repository, metrics, "0.1.0");
    }

    @AfterEach
    void stop() throws InterruptedException {
        clients.shutdownNow();
        assertTrue(clients.awaitTermination(10, TimeUnit.SECONDS), "a client hangs");
        repository.close();
        environment.close();
    }

    /** One answer: the version that ran and the outputs. */
    private record Answer(String version, Map<String, Tensor> outputs) {
    }

    private Answer infer(String model, Map<String, Tensor> inputs, List<String> outputs) {
        List<InferRequest.Input> in = new ArrayList<>();
        inputs.forEach((name, t) -> in.add(new InferRequest.Input(name, Datatype.of(t.type()), t)));
        InferRequest request = new InferRequest(null, in,
                outputs.stream().map(o -> new InferRequest.RequestedOutput(o, null)).toList(), false);
        return core.infer(model, null, () -> request, r -> new Answer(r.version(), new LinkedHashMap<>(r.outputs())));
    }

    private static Tensor randomRows(Random random, int rows, int len) {
        float[] data = new float[rows * len];
        for (int i = 0; i < data.length; i++) {
            data[i] = random.nextFloat() * 4 - 2;
        }
        return Tensor.ofFloats(data, rows, len);
    }

    private Batcher batcher(String model) {
        ServedModel m = repository.acquire(model, null);
        try {
            return m.batcher();
        } finally {
            repository.release(m);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(2);
        }
    }

    private static long metric(String text, String line) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(line) + " (\\d+)$").matcher(text);
        assertTrue(m.find(), line + " in\n" + text);
        return Long.parseLong(m.group(1));
    }

    @Test
    void concurrentRequestsAreMergedAndEachGetsItsUnbatchedResult() throws Exception {
        writeRowsModel(models.resolve("rows/1/model.onnx"));
        configure("rows", "max_batch_size=16\nmax_queue_delay_us=2000\n");
        repository.scan();
        assertNotNull(batcher("rows"), "the model is batched");
        List<List<String>> outputChoices = List.of(List.of(), List.of("s"), List.of("y"), List.of("s", "y"));
        int clientsCount = 16;
        int perClient = 25;
        List<Future<?>> done = new ArrayList<>();
        try (Session direct = environment.createSession(models.resolve("rows/1/model.onnx"), new SessionOptions())) {
            for (int c = 0; c < clientsCount; c++) {
                Random random = new Random(c);
                done.add(clients.submit(() -> {
                    for (int r = 0; r < perClient; r++) {
                        // two widths: requests of different shapes must not merge; four sets of outputs likewise
                        Tensor x = randomRows(random, 1 + random.nextInt(3), random.nextBoolean() ? 4 : 6);
                        List<String> asked = outputChoices.get(random.nextInt(outputChoices.size()));
                        Answer a = infer("rows", Map.of("x", x), asked);
                        Map<String, Tensor> expected = direct.run(Map.of("x", x));
                        assertEquals(asked.isEmpty() ? List.of("y", "s") : asked, List.copyOf(a.outputs().keySet()));
                        for (String o : a.outputs().keySet()) {
                            assertArrayEquals(expected.get(o).shape(), a.outputs().get(o).shape(), o);
                            assertArrayEquals(expected.get(o).floats(), a.outputs().get(o).floats(), 1e-6f, o);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        String text = metrics.prometheusText();
        String labels = "{model=\"rows\",version=\"1\"}";
        long requests = clientsCount * perClient;
        assertEquals(requests, metric(text, "ortex_inference_requests_total" + labels));
        assertEquals(requests, metric(text, "ortex_inference_batch_size_sum" + labels), "every request ran once");
        long runs = metric(text, "ortex_inference_batch_size_count" + labels);
        long alone = metric(text, "ortex_inference_batch_size_bucket{model=\"rows\",version=\"1\",le=\"1.0\"}");
        assertTrue(runs < requests && alone < runs, runs + " runs for " + requests + " requests, " + alone
                + " of them alone: batches of more than one request ran");
        assertEquals(requests, metric(text, "ortex_inference_queue_duration_seconds_count" + labels));
        assertEquals(requests, metric(text, "ortex_inference_compute_duration_seconds_count" + labels));
    }

    @Test
    void anErrorOfAMergedRunReachesEveryRequestInIt() throws Exception {
        writePickModel(models.resolve("pick/1/model.onnx"));
        configure("pick", "max_batch_size=4\nmax_queue_delay_us=5000000\n");
        repository.scan();
        List<Future<Answer>> answers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            long index = c == 2 ? 9 : c;  // one request's index is out of range
            answers.add(clients.submit(() -> infer("pick", Map.of("x", Tensor.ofFloats(new float[] {1, 2, 3, 4}, 1, 4),
                    "i", Tensor.ofLongs(new long[] {index}, 1, 1)), List.of())));
        }
        for (Future<Answer> f : answers) {
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> f.get(30, TimeUnit.SECONDS));
            ProtocolException p = (ProtocolException) e.getCause();
            assertEquals(ProtocolException.INTERNAL, p.status(), "as for the same request run alone");
            assertTrue(p.getMessage().startsWith("model 'pick' failed: node 'pick' (GatherElements): indices value 9 "
                    + "is out of range") && p.getMessage().endsWith(" (in a run of 4 merged requests)"),
                    p.getMessage());
        }
        // the batcher goes on: four rows in one request fill a batch and run at once
        float[] x = {1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 1, 1, 0, 0, 0, 9};
        Tensor i = Tensor.ofLongs(new long[] {3, 0, 2, 3}, 4, 1);
        Answer a = infer("pick", Map.of("x", Tensor.ofFloats(x, 4, 4), "i", i), List.of());
        assertArrayEquals(new float[] {4, 5, 1, 9}, a.outputs().get("g").floats());
        String text = metrics.prometheusText();
        assertEquals(5, metric(text, "ortex_inference_requests_total{model=\"pick\",version=\"1\"}"));
        assertEquals(4, metric(text, "ortex_inference_failures_total{model=\"pick\",version=\"1\"}"));
    }

    @Test
    void aFullQueueIsRefusedWith503AndTheQueuedRequestsComplete() throws Exception {
        writeRowsModel(models.resolve("rows/1/model.onnx"));
        // a delay far longer than the steps below take on a loaded machine: the first batch must still be forming
        configure("rows", "max_batch_size=8\nmax_queue_delay_us=3000000\nmax_queue_size=1\n");
        repository.scan();
        Batcher batcher = batcher("rows");
        Random random = new Random(1);
        Future<Answer> first = clients.submit(() -> infer("rows", Map.of("x", randomRows(random, 1, 4)), List.of()));
        await(() -> batcher.pending() == 1 && batcher.queued() == 0, "the first request waits in a forming batch");
        Future<Answer> second = clients.submit(() -> infer("rows", Map.of("x", randomRows(random, 1, 6)), List.of()));
        await(() -> batcher.queued() == 1, "the second request, of another shape, is queued");
        InferenceHandler handler = new InferenceHandler(core, new InferRequestDecoder(1 << 20));
        Reply refused = handler.handle(new Request("POST", "/v2/models/rows/infer", null, ("{\"inputs\":[{\"name\":"
                + "\"x\",\"datatype\":\"FP32\",\"shape\":[1,2],\"data\":[1,2]}]}").getBytes(StandardCharsets.UTF_8)));
        assertEquals(503, refused.status());
        assertEquals("{\"error\":\"model 'rows': the batching queue is full (max_queue_size 1); try again\"}",
                new String(refused.body(), StandardCharsets.UTF_8));
        assertEquals(List.of(1L, 4L), List.of(first.get(30, TimeUnit.SECONDS).outputs().get("y").shape()[0],
                first.get().outputs().get("y").shape()[1]));
        assertEquals(6, second.get(30, TimeUnit.SECONDS).outputs().get("y").shape()[1]);
        assertEquals(0, batcher.pending());
    }

    @Test
    void aVersionSwapAndAnUnloadAnswerEveryQueuedRequest() throws Exception {
        Path v1 = writeRowsModelVersion(1);
        configure("rows", "max_batch_size=4\nmax_queue_delay_us=100000\n");
        repository.scan();
        ServedModel first = repository.acquire("rows", null);
        repository.release(first);
        Batcher batcher = first.batcher();
        List<Future<Answer>> queued = submitOfEveryWidth(batcher, 6);
        writeRowsModelVersion(2);
        repository.scan();  // version 2 takes over while version 1 still has queued requests
        assertEquals("2", infer("rows", Map.of("x", randomRows(new Random(3), 8, 3)), List.of()).version(),
                "a batch of 8 rows or more runs at once");
        try (Session direct = environment.createSession(v1, new SessionOptions())) {
            for (int i = 0; i < queued.size(); i++) {
                Answer a = queued.get(i).get(10, TimeUnit.SECONDS);
                assertEquals("1", a.version());
                assertArrayEquals(direct.run(Map.of("x", inputOfWidth(i))).get("s").floats(),
                        a.outputs().get("s").floats(), 1e-6f);
            }
        }
        await(first::closed, "version 1 closes after its last queued request");

        ServedModel second = repository.acquire("rows", null);
        repository.release(second);
        List<Future<Answer>> beforeUnload = submitOfEveryWidth(second.batcher(), 4);
        repository.unload("rows");
        for (Future<Answer> f : beforeUnload) {
            assertEquals("2", f.get(10, TimeUnit.SECONDS).version());
        }
        await(second::closed, "version 2 closes after its last queued request");
        ProtocolException gone = assertThrows(ProtocolException.class,
                () -> infer("rows", Map.of("x", inputOfWidth(0)), List.of()));
        assertEquals(ProtocolException.UNAVAILABLE, gone.status());
    }

    private Path writeRowsModelVersion(int version) throws IOException {
        Path file = models.resolve("rows").resolve(Integer.toString(version)).resolve("model.onnx");
        writeRowsModel(file);
        return file;
    }

    private static Tensor inputOfWidth(int i) {
        return randomRows(new Random(i), 1, 2 + i);
    }

    /** Submits requests that merge with none (each of its own width) and waits until all of them are queued. */
    private List<Future<Answer>> submitOfEveryWidth(Batcher batcher, int count) throws InterruptedException {
        List<Future<Answer>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Tensor x = inputOfWidth(i);
            futures.add(clients.submit(() -> infer("rows", Map.of("x", x), List.of("s"))));
        }
        await(() -> batcher.pending() == count, count + " requests queued");
        return futures;
    }

    @Test
    void batchingSettingsAreCheckedAndAModelWithAFixedFirstDimensionRunsUnbatched() throws Exception {
        writeRowsModel(models.resolve("bad/1/model.onnx"));
        configure("bad", "max_batch_size=-1\n");
        writePickModel(models.resolve("late/1/model.onnx"));
        configure("late", "max_batch_size=8\nmax_queue_delay_us=20000000\n");
        new ModelBuilder().opset(17).input("x", ElementType.FLOAT, 2, 3).output("y", ElementType.FLOAT, 2, 3)
                .node("Relu", "relu", List.of("x"), List.of("y")).write(models.resolve("fixed/1/model.onnx"));
        configure("fixed", "max_batch_size=8\n");
        repository.scan();
        Map<String, String> reasons = new LinkedHashMap<>();
        repository.index().forEach(e -> reasons.put(e.name(), e.reason()));
        assertTrue(reasons.get("bad").endsWith("max_batch_size '-1' is not a row count (0 or 1: no batching)"),
                reasons.get("bad"));
        assertTrue(reasons.get("late").endsWith("max_queue_delay_us '20000000' is not microseconds from 0 to "
                + "10000000"), reasons.get("late"));
        assertNull(batcher("fixed"), "a fixed first dimension is not batched");
        assertArrayEquals(new float[] {0, 1, 0, 2, 0, 3}, infer("fixed", Map.of("x",
                Tensor.ofFloats(new float[] {-1, 1, -2, 2, -3, 3}, 2, 3)), List.of()).outputs().get("y").floats());
    }
}
