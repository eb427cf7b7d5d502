package io.ortex.benchmarks.serving;

import java.util.ArrayList;
import java.util.List;

/**
 * What one phase saw: each answered request's start and latency, each failure with its error, and the events of the
 * phase's disturbance, all on {@link System#nanoTime()}. Thread safe.
 */
final class Recorder {
    /** The failures kept with their errors; more are counted only. */
    static final int FAILURES_KEPT = 50;

    private final long origin;
    private final List<Sample> samples = new ArrayList<>();
    private final List<Failure> failures = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private int failureCount;

    /**
     * A request answered correctly.
     *
     * @param start when it was sent, in nanoseconds
     * @param latency how long it took, in nanoseconds
     */
    record Sample(long start, long latency) {
    }

    /**
     * A failed request.
     *
     * @param atSeconds when it was sent, seconds into the phase
     * @param client the client that sent it
     * @param error what went wrong
     */
    record Failure(double atSeconds, int client, String error) {
    }

    /**
     * Something the disturbance did.
     *
     * @param at when, in nanoseconds
     * @param what what happened
     */
    record Event(long at, String what) {
    }

    /**
     * Creates a recorder whose phase starts now.
     */
    Recorder() {
        this.origin = System.nanoTime();
    }

    /**
     * Gets when the phase started.
     *
     * @return nanoseconds
     */
    long origin() {
        return origin;
    }

    /**
     * Records an answered request.
     *
     * @param start when it was sent
     * @param latency how long it took
     */
    synchronized void answered(long start, long latency) {
        samples.add(new Sample(start, latency));
    }

    /**
     * Records a failed request.
     *
     * @param start when it was sent
     * @param client the client
     * @param error what went wrong
     */
    synchronized void failed(long start, int client, String error) {
        failureCount++;
        if (failures.size() < FAILURES_KEPT) {
            failures.add(new Failure((start - origin) / 1e9, client, error));
        }
    }

    /**
     * Records an event of the disturbance, now.
     *
     * @param what what happened
     */
    synchronized void event(String what) {
        events.add(new Event(System.nanoTime(), what));
    }

    /**
     * Copies the answered requests.
     *
     * @return the samples in the order recorded
     */
    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /**
     * Copies the failures kept.
     *
     * @return at most {@link #FAILURES_KEPT}
     */
    synchronized List<Failure> failures() {
        return List.copyOf(failures);
    }

    /**
     * Counts the failures.
     *
     * @return every failure, kept or not
     */
    synchronized int failureCount() {
        return failureCount;
    }

    /**
     * Copies the events.
     *
     * @return the events in order
     */
    synchronized List<Event> events() {
        return List.copyOf(events);
    }
}
