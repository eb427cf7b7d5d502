package io.ortex.benchmarks.serving;

import io.ortex.testing.RealModels;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The load test: prepares and starts the server, copies all-MiniLM-L6-v2 in twice (one model without batching, one
 * with), computes the expected outputs with a direct session run, and runs the phases one after the other on the same
 * server. A phase's id is {@code PROTOCOL[-batched][-ep|-version]}: {@code rest} or {@code grpc}, the batched model or
 * not, and the example EP churning ({@link EpChurn}) or versions being swapped ({@link VersionSwap}) or neither.
 */
final class ServingLoad {
    /** Every phase id, in the order of a full run. */
    static final List<String> PHASES = List.of("rest", "rest-batched", "grpc", "grpc-batched",
            "rest-ep", "rest-batched-ep", "grpc-ep", "grpc-batched-ep",
            "rest-version", "rest-batched-version", "grpc-version", "grpc-batched-version");
    /** The unbatched model's name and configuration. */
    static final String PLAIN = "minilm";
    /** The configuration of the model without batching. */
    static final String PLAIN_CONFIG = "# requests run one by one, concurrently\n";
    /** The batched model's name. */
    static final String BATCHED = "minilm-batched";
    /** The configuration of the batched model. */
    static final String BATCHED_CONFIG = "max_batch_size=16\nmax_queue_delay_us=1000\n";

    private static final Duration STEP_LIMIT = Duration.ofSeconds(90);

    private ServingLoad() {
    }

    /**
     * Runs the load test.
     *
     * @param settings the settings
     * @param progress where each phase's outcome is printed as it ends
     * @return the report
     * @throws IOException when the server cannot be prepared or started, or does not follow a change
     * @throws InterruptedException when interrupted
     */
    static LoadReport run(LoadSettings settings, PrintStream progress) throws IOException, InterruptedException {
        String loadBefore = Machine.loadAverage();
        Path model = RealModels.model("all-minilm-l6-v2");
        TokenRows tokens = TokenRows.of(RealModels.file("all-minilm-l6-v2/tokenizer.json"), settings.tokens());
        ExpectedOutputs expected = ExpectedOutputs.compute(model, tokens);
        Files.createDirectories(settings.work());
        List<PhaseResult> results = new ArrayList<>();
        try (ServerProcess server = ServerProcess.prepare(settings.dist(), settings.work().resolve("ortex"),
                settings.drainLimitSeconds())) {
            Path models = server.home().resolve("models");
            ModelFolder plain = ModelFolder.install(models, PLAIN, model, PLAIN_CONFIG);
            ModelFolder batched = ModelFolder.install(models, BATCHED, model, BATCHED_CONFIG);
            server.start();
            for (ModelFolder m : List.of(plain, batched)) {
                server.await("model " + m.name() + " is ready", () -> server.get("/v2/models/" + m.name()
                        + "/ready") == 200, STEP_LIMIT);
            }
            progress.printf("server ready on 127.0.0.1:%d (REST) and :%d (gRPC); log %s%n", server.httpPort(),
                    server.grpcPort(), server.home().resolve("serve.log"));
            try (RestInferClient rest = new RestInferClient(server.httpPort(), tokens);
                 GrpcInferClient grpc = new GrpcInferClient(server.grpcPort(), tokens)) {
                warmUp(List.of(rest, grpc), List.of(plain, batched), expected);
                for (String id : settings.phases()) {
                    boolean isBatched = id.contains("-batched");
                    ModelFolder m = isBatched ? batched : plain;
                    String base = isBatched ? BATCHED_CONFIG : PLAIN_CONFIG;
                    Disturbance d = id.endsWith("-ep") ? new EpChurn(settings.epCycles(), base)
                            : id.endsWith("-version") ? new VersionSwap(settings.versionSwaps()) : Disturbance.NONE;
                    InferClient client = id.startsWith("grpc") ? grpc : rest;
                    double[] batchBefore = Machine.batchTotals(server.text("/metrics"), m.name());
                    PhaseResult r = new LoadPhase(id, client, m, isBatched, d).run(server, expected,
                            settings.clients(), settings.phaseSeconds());
                    if (d == Disturbance.NONE) {
                        double[] after = Machine.batchTotals(server.text("/metrics"), m.name());
                        double count = after[1] - batchBefore[1];
                        r.meanBatch(count > 0 ? (after[0] - batchBefore[0]) / count : Double.NaN);
                    }
                    if (d instanceof EpChurn) {
                        restoreConfig(server, m, base);
                    }
                    results.add(r);
                    progress.printf("%-22s %8.1f req/s  p50 %7.1f ms  p90 %7.1f ms  p99 %7.1f ms  failed %d%s%n",
                            id, r.throughput(), r.latencies().millis(50), r.latencies().millis(90),
                            r.latencies().millis(99), r.failureCount(), r.disturbanceFailure() == null ? ""
                                    : "  (" + r.disturbanceFailure().getMessage().lines().findFirst().orElse("")
                                    + ")");
                    r.failures().stream().limit(5).forEach(f -> progress.printf("    %.2f s client %d: %s%n",
                            f.atSeconds(), f.client(), f.error()));
                }
            }
        }
        return new LoadReport(settings, loadBefore, tokens.length(), model, results);
    }

    /** A few requests of each model over each protocol, checked like the phases' ones, before measuring. */
    private static void warmUp(List<InferClient> clients, List<ModelFolder> models, ExpectedOutputs expected)
            throws IOException {
        for (InferClient c : clients) {
            for (ModelFolder m : models) {
                for (int i = 0; i < 10; i++) {
                    int row = i % expected.rows();
                    String wrong;
                    try {
                        wrong = expected.check(row, c.infer(m.name(), row));
                    } catch (Exception e) {
                        wrong = e.toString();
                    }
                    if (wrong != null) {
                        throw new IOException("warm-up request " + (i + 1) + " to " + m.name() + " over "
                                + c.protocol() + " failed: " + wrong);
                    }
                }
            }
        }
    }

    /** Puts the model's configuration back after an EP phase and waits until it is loaded with it. */
    private static void restoreConfig(ServerProcess server, ModelFolder m, String base)
            throws IOException, InterruptedException {
        String loaded = "model '" + m.name() + "' version " + m.version() + " loaded (EPs [";
        int before = Disturbance.count(server, loaded);
        m.writeConfig(base);
        server.await("model " + m.name() + " is loaded again with its own configuration",
                () -> Disturbance.count(server, loaded) > before, STEP_LIMIT);
    }
}
