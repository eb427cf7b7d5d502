package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The request rate of the last minute and the latencies the status page reads from the metrics. */
class RecentRateTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void countsTheLastMinuteOnly() {
        RecentRate rate = new RecentRate(0);
        for (int i = 0; i < 30; i++) {
            rate.record(i * SECOND / 2);  // 2 a second for 15 s
        }
        assertEquals(30 / 15.0, rate.perSecond(15 * SECOND), 1e-9, "over the 15 s since counting began");
        assertEquals(30 / 60.0, rate.perSecond(60 * SECOND - 1), 1e-9);
        assertEquals(0, rate.perSecond(200 * SECOND), 1e-9, "nothing in the last minute");
        rate.record(200 * SECOND);  // a slot reused for a new second starts from one
        assertEquals(1 / 60.0, rate.perSecond(200 * SECOND), 1e-9);
    }

    @Test
    void concurrentRecordsAreAllCounted() throws InterruptedException {
        RecentRate rate = new RecentRate(0);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 25_000; i++) {
                    rate.record(3 * SECOND + i);  // all in one second
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(100_000 / 4.0, rate.perSecond(4 * SECOND), 1e-9);
    }

    @Test
    void metricsSnapshotEstimatesLatencies() {
        Metrics m = new Metrics();
        for (int i = 0; i < 98; i++) {
            m.record("a", "1", true, 2_000_000, 1_000_000);  // 2 ms: bucket (1 ms, 2.5 ms]
        }
        m.record("a", "1", false, 400_000_000, -1);  // 400 ms: bucket (250 ms, 500 ms]
        m.record("a", "1", false, 400_000_000, -1);
        ModelStats s = m.snapshot().get(0);
        assertEquals("a", s.model());
        assertEquals("1", s.version());
        assertEquals(100, s.requests());
        assertEquals(2, s.failures());
        assertEquals((98 * 2 + 2 * 400) / 100.0, s.meanMillis(), 1e-6);
        assertTrue(s.p50Millis() > 1 && s.p50Millis() <= 2.5, "p50 " + s.p50Millis());
        assertTrue(s.p99Millis() > 250 && s.p99Millis() <= 500, "p99 " + s.p99Millis());
        assertTrue(s.perSecond() > 0);
    }
}
