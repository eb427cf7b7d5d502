package io.ortex.benchmarks.serving;

import java.util.ArrayList;
import java.util.List;

/**
 * What one phase measured: throughput, exact latency percentiles, the failures with their errors, and for each
 * event of its disturbance the latencies of the requests sent in the second after it. Immutable once the mean batch
 * is set.
 */
final class PhaseResult {
    /** The window after an event whose requests show what the event cost. */
    static final long WINDOW_NANOS = 1_000_000_000L;

    private final String title;
    private final String protocol;
    private final boolean batched;
    private final String disturbance;
    private final int clients;
    private final double plannedSeconds;
    private final double seconds;
    private final Latencies latencies;
    private final List<Recorder.Failure> failures;
    private final int failureCount;
    private final List<EventWindow> events;
    private final Throwable disturbanceFailure;
    private double meanBatch = Double.NaN;

    /**
     * One event with the requests sent in the window after it.
     *
     * @param atSeconds when it happened, seconds into the phase
     * @param what what happened
     * @param window the latencies of the requests sent within {@link #WINDOW_NANOS} after it
     */
    record EventWindow(double atSeconds, String what, Latencies window) {
    }

    PhaseResult(String title, String protocol, boolean batched, String disturbance, int clients,
            double plannedSeconds, double seconds, Recorder recorder, Throwable disturbanceFailure) {
        this.title = title;
        this.protocol = protocol;
        this.batched = batched;
        this.disturbance = disturbance;
        this.clients = clients;
        this.plannedSeconds = plannedSeconds;
        this.seconds = seconds;
        List<Recorder.Sample> samples = recorder.samples();
        this.latencies = new Latencies(samples);
        this.failures = recorder.failures();
        this.failureCount = recorder.failureCount();
        this.disturbanceFailure = disturbanceFailure;
        List<EventWindow> windows = new ArrayList<>();
        for (Recorder.Event e : recorder.events()) {
            List<Recorder.Sample> in = samples.stream()
                    .filter(s -> s.start() >= e.at() && s.start() < e.at() + WINDOW_NANOS).toList();
            windows.add(new EventWindow((e.at() - recorder.origin()) / 1e9, e.what(), new Latencies(in)));
        }
        this.events = List.copyOf(windows);
    }

    String title() {
        return title;
    }

    String protocol() {
        return protocol;
    }

    boolean batched() {
        return batched;
    }

    String disturbance() {
        return disturbance;
    }

    int clients() {
        return clients;
    }

    double plannedSeconds() {
        return plannedSeconds;
    }

    double seconds() {
        return seconds;
    }

    Latencies latencies() {
        return latencies;
    }

    /**
     * Gets the answered requests per second.
     *
     * @return the throughput
     */
    double throughput() {
        return latencies.count() / seconds;
    }

    List<Recorder.Failure> failures() {
        return failures;
    }

    int failureCount() {
        return failureCount;
    }

    List<EventWindow> events() {
        return events;
    }

    /**
     * Gets what went wrong with the disturbance itself (a change the server did not follow in time).
     *
     * @return the failure, or null
     */
    Throwable disturbanceFailure() {
        return disturbanceFailure;
    }

    /**
     * Tells whether the phase passed: no failed request and the disturbance completed.
     *
     * @return true when passed
     */
    boolean passed() {
        return failureCount == 0 && disturbanceFailure == null;
    }

    double meanBatch() {
        return meanBatch;
    }

    void meanBatch(double mean) {
        this.meanBatch = mean;
    }
}
