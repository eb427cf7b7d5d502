package io.ortex.shell.internal;

import java.util.Arrays;

/**
 * Summary statistics of run latencies in milliseconds.
 *
 * @param min the fastest run
 * @param median the median run
 * @param p90 the 90th percentile (nearest rank)
 * @param mean the mean
 * @param runs the number of timed runs
 */
public record Latency(double min, double median, double p90, double mean, int runs) {
    /**
     * Summarizes latencies.
     *
     * @param millis the latencies, at least one
     * @return the summary
     */
    public static Latency of(double[] millis) {
        double[] s = millis.clone();
        Arrays.sort(s);
        int n = s.length;
        double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        double p90 = s[Math.min(n - 1, (int) Math.ceil(0.9 * n) - 1)];
        return new Latency(s[0], median, p90, Arrays.stream(s).average().orElse(0), n);
    }
}
