package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.Tensor;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ortex:models}' table on a real repository with a batched model run by the runtime and the CPU EP: each loaded
 * version's queue depth and requests in flight while requests wait for a batch, a replaced version listed as
 * {@code DRAINING} until its last request is answered, and the lines of models that are not ready.
 */
class ModelTableTest {
    @TempDir
    Path models;

    private Environment environment;
    private ModelRepository repository;
    private InferenceCore core;
    private final ExecutorService clients = Executors.newFixedThreadPool(4);

    @BeforeEach
    void start() {
        environment = Environment.create();
        repository = new ModelRepository(environment, models);
        core = new InferenceCore(repository, new Metrics(), "0.1.0");
    }

    @AfterEach
    void stop() throws InterruptedException {
        clients.shutdownNow();
        assertTrue(clients.awaitTermination(10, TimeUnit.SECONDS), "a client hangs");
        repository.close();
        environment.close();
    }

    /** {@code y = Relu(x)} of {@code [batch, len]}: rows are independent, the second dimension is free. */
    private void writeReluModel(int version) throws IOException {
        Path file = models.resolve("relu").resolve(Integer.toString(version)).resolve("model.onnx");
        Files.createDirectories(file.getParent());
        new ModelBuilder().opset(17).input("x", ElementType.FLOAT, -1, -1).output("y", ElementType.FLOAT, -1, -1)
                .node("Relu", "relu", List.of("x"), List.of("y")).write(file);
    }

    private Future<float[]> submit(int width) {
        Tensor x = Tensor.ofFloats(new float[width], 1, width);
        InferRequest request = new InferRequest(null, List.of(new InferRequest.Input("x", Datatype.of(x.type()), x)),
                List.of(), false);
        return clients.submit(() -> core.infer("relu", null, () -> request, r -> r.outputs().get("y").floats()));
    }

    private ModelRepository.Entry entry(String version) {
        return repository.versions().stream().filter(e -> e.name().equals("relu") && e.version().equals(version))
                .findFirst().orElse(null);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(2);
        }
    }

    @Test
    void showsEachLoadedVersionsQueueDepthAndRequestsInFlight() throws Exception {
        writeReluModel(1);
        // the first request's batch waits 5 s for more of its shape; requests of other widths queue behind it
        Files.writeString(models.resolve("relu/config.properties"), "max_batch_size=8\nmax_queue_delay_us=5000000\n");
        Files.createDirectories(models.resolve("broken/1"));
        Files.writeString(models.resolve("broken/1/model.onnx"), "not a model");
        repository.scan();
        assertTrue(ModelTable.format(models, repository.versions()).matches(
                "(?s)models in .*\nNAME +VERSION +STATE +QUEUED +IN-FLIGHT +EPS / REASON\n.*"
                + "relu +1 +READY +0 +0 +CPUExecutionProvider.*"), ModelTable.format(models, repository.versions()));

        List<Future<float[]>> answers = new ArrayList<>();
        answers.add(submit(2));
        // in flight from the moment it is accepted, queued until the batcher takes it to form a batch
        await(() -> entry("1").inFlight() == 1 && entry("1").queued() == 0,
                "the first request leaves the queue to form a batch");
        answers.add(submit(3));
        answers.add(submit(4));
        await(() -> entry("1").queued() == 2, "two requests of other widths are queued");
        assertEquals(3, entry("1").inFlight());
        String table = ModelTable.format(models, repository.versions());
        assertTrue(table.matches("(?s).*\nrelu +1 +READY +2 +3 +CPUExecutionProvider(\n.*|$)"), table);
        assertTrue(table.matches("(?s).*\nbroken +1 +UNAVAILABLE +0 +0 +version 1: .*"), table);

        // version 2 takes over at once; version 1 is listed as draining until its three requests are answered
        writeReluModel(2);
        repository.scan();
        table = ModelTable.format(models, repository.versions());
        assertTrue(table.matches("(?s).*\nrelu +2 +READY +0 +0 +CPUExecutionProvider\n.*"), table);
        assertTrue(table.matches("(?s).*\nrelu +1 +DRAINING +[0-2] +[1-3] +CPUExecutionProvider(\n.*|$)"), table);
        for (Future<float[]> a : answers) {
            assertEquals(0f, a.get(30, TimeUnit.SECONDS)[0]);
        }
        await(() -> entry("1") == null, "version 1 is closed and no longer listed");
        assertEquals(List.of("relu", "broken").stream().sorted().toList(),
                repository.versions().stream().map(ModelRepository.Entry::name).sorted().toList());
    }
}
