package io.ortex.benchmarks.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Exact nearest-rank percentiles, and the machine figures the report reads from {@code /metrics}. */
class LatenciesTest {
    private static Latencies of(long... millis) {
        List<Recorder.Sample> samples = new ArrayList<>();
        for (long m : millis) {
            samples.add(new Recorder.Sample(0, m * 1_000_000));
        }
        return new Latencies(samples);
    }

    @Test
    void percentilesAreNearestRankOverTheSortedLatencies() {
        List<Long> values = new ArrayList<>();
        for (long i = 100; i >= 1; i--) {
            values.add(i);
        }
        Latencies l = of(values.stream().mapToLong(Long::longValue).toArray());
        assertEquals(100, l.count());
        assertEquals(50.0, l.millis(50));
        assertEquals(90.0, l.millis(90));
        assertEquals(99.0, l.millis(99));
        assertEquals(100.0, l.maxMillis());
        assertEquals(1.0, l.millis(0));
        Latencies three = of(30, 10, 20);
        assertEquals(20.0, three.millis(50));
        assertEquals(30.0, three.millis(99));
        assertTrue(Double.isNaN(of().millis(50)));
    }

    @Test
    void batchTotalsAddUpEveryVersionOfOneModel() {
        String metrics = "ortex_inference_batch_size_sum{model=\"m\",version=\"1\"} 10.0\n"
                + "ortex_inference_batch_size_count{model=\"m\",version=\"1\"} 4\n"
                + "ortex_inference_batch_size_sum{model=\"m\",version=\"2\"} 6.0\n"
                + "ortex_inference_batch_size_count{model=\"m\",version=\"2\"} 2\n"
                + "ortex_inference_batch_size_sum{model=\"m2\",version=\"1\"} 99.0\n";
        double[] totals = Machine.batchTotals(metrics, "m");
        assertEquals(16.0, totals[0]);
        assertEquals(6.0, totals[1]);
    }
}
