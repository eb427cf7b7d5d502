package io.ortex.benchmarks.serving;

import java.nio.file.Path;
import java.util.List;

/**
 * The load test's outcome.
 *
 * @param settings the settings it ran with
 * @param loadBefore the machine's load average before it started
 * @param tokens the tokens per request
 * @param model the model file served
 * @param phases each phase's result, in order
 */
record LoadReport(LoadSettings settings, String loadBefore, int tokens, Path model, List<PhaseResult> phases) {
    /**
     * Copies the list.
     *
     * @param settings the settings
     * @param loadBefore the load average before
     * @param tokens tokens per request
     * @param model the model file
     * @param phases the results
     */
    LoadReport {
        phases = List.copyOf(phases);
    }

    /**
     * Tells whether every phase passed.
     *
     * @return true when no request failed and every change was followed
     */
    boolean passed() {
        return phases.stream().allMatch(PhaseResult::passed);
    }

    /**
     * Counts the failed requests of all phases.
     *
     * @return the count
     */
    int failures() {
        return phases.stream().mapToInt(PhaseResult::failureCount).sum();
    }
}
