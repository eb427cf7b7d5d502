package io.ortex.benchmarks.serving;

import java.util.Arrays;
import java.util.List;

/**
 * Exact latency percentiles of a set of requests (nearest rank over the sorted latencies, no bucketing). Immutable.
 */
final class Latencies {
    private final long[] sorted;

    /**
     * Sorts the latencies of the samples.
     *
     * @param samples the answered requests
     */
    Latencies(List<Recorder.Sample> samples) {
        this.sorted = samples.stream().mapToLong(Recorder.Sample::latency).sorted().toArray();
    }

    /**
     * Counts the requests.
     *
     * @return the count
     */
    int count() {
        return sorted.length;
    }

    /**
     * Gets a percentile in milliseconds.
     *
     * @param p the percentile, 0 to 100
     * @return the latency at or below which {@code p}% of the requests lie; NaN without requests
     */
    double millis(double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] / 1e6;
    }

    /**
     * Gets the longest latency in milliseconds.
     *
     * @return the maximum; NaN without requests
     */
    double maxMillis() {
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6;
    }

    @Override
    public String toString() {
        return count() + " requests, latencies " + Arrays.toString(Arrays.copyOf(sorted, Math.min(5, sorted.length)))
                + "...";
    }
}
