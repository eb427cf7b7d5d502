package io.ortex.benchmarks.serving;

import java.nio.file.Path;
import java.util.List;

/**
 * The load test's settings.
 *
 * @param dist the built distribution ({@code assembly/target/ortex})
 * @param work a folder for the server's copy of the distribution (created; left in place for its log)
 * @param clients closed-loop clients per phase
 * @param phaseSeconds the planned duration of each phase
 * @param tokens the tokens per request
 * @param epCycles example EP drop/remove cycles per EP phase
 * @param versionSwaps version swaps per version phase
 * @param phases the phases to run, by id ({@link ServingLoad#PHASES}), in this order
 * @param drainLimitSeconds the runtime's {@code drain.limit.seconds} for the server, or 0 for the distribution's
 */
record LoadSettings(Path dist, Path work, int clients, double phaseSeconds, int tokens, int epCycles,
        int versionSwaps, List<String> phases, int drainLimitSeconds) {
    /**
     * Checks and copies the settings.
     *
     * @param dist the built distribution
     * @param work the work folder
     * @param clients clients per phase
     * @param phaseSeconds seconds per phase
     * @param tokens tokens per request
     * @param epCycles EP cycles per EP phase
     * @param versionSwaps swaps per version phase
     * @param phases the phases' ids
     * @param drainLimitSeconds the drain limit, 0 for the distribution's
     */
    LoadSettings {
        if (clients < 1 || clients > 1024) {
            throw new IllegalArgumentException("--clients " + clients + ": between 1 and 1024");
        }
        if (!(phaseSeconds >= 1 && phaseSeconds <= 3600)) {
            throw new IllegalArgumentException("--seconds " + phaseSeconds + ": between 1 and 3600");
        }
        if (tokens < 3 || tokens > 512) {
            throw new IllegalArgumentException("--tokens " + tokens + ": between 3 and 512 (the model's positions)");
        }
        if (epCycles < 1 || versionSwaps < 1) {
            throw new IllegalArgumentException("--ep-cycles and --swaps: at least 1");
        }
        for (String p : phases) {
            if (!ServingLoad.PHASES.contains(p)) {
                throw new IllegalArgumentException("--phases: no phase '" + p + "'; the phases are "
                        + String.join(", ", ServingLoad.PHASES));
            }
        }
        if (drainLimitSeconds < 0) {
            throw new IllegalArgumentException("--drain-limit " + drainLimitSeconds + ": seconds, 0 or more");
        }
        phases = List.copyOf(phases);
    }
}
