package io.ortex.benchmarks.serving;

import java.time.Duration;

/**
 * Replaces the model's version {@code swaps} times spread over the phase: copies the model in as the next version
 * folder ({@code models/NAME/N+1/}), waits until that version is ready, deletes the old version's folder and waits
 * until the old session has closed (after its running and queued requests).
 */
final class VersionSwap implements Disturbance {
    private static final Duration STEP_LIMIT = Duration.ofSeconds(90);

    private final int swaps;

    /**
     * Creates the swaps.
     *
     * @param swaps how many versions replace the one before
     */
    VersionSwap(int swaps) {
        this.swaps = swaps;
    }

    @Override
    public void run(ServerProcess server, ModelFolder model, Recorder recorder, long phaseNanos) throws Exception {
        long spacing = phaseNanos / swaps;
        for (int i = 0; i < swaps; i++) {
            Disturbance.sleepUntil(recorder, i * spacing + spacing / 3);
            int old = model.version();
            String closed = "model '" + model.name() + "' version " + old + " closed";
            int closings = Disturbance.count(server, closed);
            int next = model.addVersion();
            recorder.event("version " + next + " copied in");
            server.await("version " + next + " is ready",
                    () -> server.get("/v2/models/" + model.name() + "/versions/" + next + "/ready") == 200,
                    STEP_LIMIT);
            recorder.event("version " + next + " serving");
            model.removeVersion(old);
            recorder.event("version " + old + " folder deleted");
            server.await("version " + old + " is closed", () -> Disturbance.count(server, closed) > closings,
                    STEP_LIMIT);
            recorder.event("version " + old + " closed");
        }
    }

    @Override
    public String describe() {
        return swaps + " version swap" + (swaps == 1 ? "" : "s");
    }
}
