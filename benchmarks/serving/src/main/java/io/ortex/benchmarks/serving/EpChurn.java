package io.ortex.benchmarks.serving;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Drops the example EP bundle jar into {@code deploy/} and removes it again, {@code cycles} times spread over the
 * phase. The model's configuration asks for {@code policy=PREFER_NPU}; since the server moves no loaded model onto an
 * EP that arrives, each drop is followed by a rewrite of the model's {@code config.properties} (which reloads it on
 * the example EP's virtual NPU), so that every removal takes a serving model off the EP: the server loads it again
 * on the remaining EPs while the old session drains. Each step waits until the server followed it (the EP's device
 * in {@code /metrics}, the log's "loaded" lines, the runtime's line that the EP's removal is done and how).
 */
final class EpChurn implements Disturbance {
    private static final Duration STEP_LIMIT = Duration.ofSeconds(90);
    private static final String EP = "ExampleExecutionProvider";
    /** The runtime's log line when the EP library's removal is done, with its outcome ("drained", ...). */
    private static final String REMOVED = "EP library 'io.ortex.ep.example' removed";
    /** The runtime's log line when no session held the EP library at its removal. */
    private static final String UNHELD = "EP library 'io.ortex.ep.example' (" + EP + ") is being removed: no session";

    private final int cycles;
    private final String baseConfig;

    /**
     * Creates the churn.
     *
     * @param cycles drop-and-remove cycles
     * @param baseConfig the model's configuration, to which {@code policy=PREFER_NPU} is added
     */
    EpChurn(int cycles, String baseConfig) {
        this.cycles = cycles;
        this.baseConfig = baseConfig;
    }

    @Override
    public void run(ServerProcess server, ModelFolder model, Recorder recorder, long phaseNanos) throws Exception {
        Path deploy = server.home().resolve("deploy");
        Path jar;
        try (Stream<Path> examples = Files.list(server.home().resolve("examples"))) {
            jar = examples.filter(p -> p.getFileName().toString().startsWith("io.ortex.ep.example-")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no io.ortex.ep.example-*.jar in examples/"));
        }
        String loaded = "model '" + model.name() + "' version " + model.version() + " loaded (EPs [";
        long spacing = phaseNanos / cycles;
        for (int i = 0; i < cycles; i++) {
            Disturbance.sleepUntil(recorder, i * spacing + spacing / 10);
            Files.copy(jar, deploy.resolve("example.jar.tmp"), StandardCopyOption.REPLACE_EXISTING);
            Files.move(deploy.resolve("example.jar.tmp"), deploy.resolve("example.jar"),
                    StandardCopyOption.ATOMIC_MOVE);
            recorder.event("example EP jar dropped into deploy/");
            server.await("the example EP's device is active", () -> epState(server, "active"), STEP_LIMIT);
            recorder.event("example EP active");
            int onNpu = Disturbance.count(server, loaded + EP);
            model.writeConfig(baseConfig + "policy=PREFER_NPU\n# cycle " + (i + 1) + "\n");
            recorder.event("config.properties rewritten (policy=PREFER_NPU)");
            server.await("the model is reloaded on the example EP",
                    () -> Disturbance.count(server, loaded + EP) > onNpu, STEP_LIMIT);
            recorder.event("model reloaded on the example EP");
            Disturbance.sleepUntil(recorder, i * spacing + spacing / 2);
            int off = Disturbance.count(server, loaded) - Disturbance.count(server, loaded + EP);
            int removals = Disturbance.count(server, REMOVED);
            int unheld = Disturbance.count(server, UNHELD);
            Files.delete(deploy.resolve("example.jar"));
            recorder.event("example EP jar removed from deploy/");
            server.await("the model is reloaded without the example EP",
                    () -> Disturbance.count(server, loaded) - Disturbance.count(server, loaded + EP) > off,
                    STEP_LIMIT);
            recorder.event("model reloaded without the example EP");
            server.await("the example EP's removal is done", () -> Disturbance.count(server, REMOVED) > removals
                    || Disturbance.count(server, UNHELD) > unheld, STEP_LIMIT);
            String outcome = server.log().lines().filter(l -> l.contains(REMOVED) || l.contains(UNHELD))
                    .reduce((a, b) -> b).orElse("");
            recorder.event("example EP removed: " + outcome.substring(outcome.indexOf("EP library")));
        }
    }

    private static boolean epState(ServerProcess server, String state) {
        return server.text("/metrics").lines().anyMatch(l -> l.contains("ep=\"" + EP + "\"")
                && l.contains("state=\"" + state + "\"") && l.endsWith(" 1"));
    }

    @Override
    public String describe() {
        return cycles + " example EP drop/remove cycle" + (cycles == 1 ? "" : "s");
    }
}
