package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LatencyTest {
    @Test
    void oneRun() {
        assertEquals(new Latency(2, 2, 2, 2, 1), Latency.of(new double[] {2}));
    }

    @Test
    void evenCountTakesTheMeanOfTheMiddleTwo() {
        Latency l = Latency.of(new double[] {4, 1, 3, 2});
        assertEquals(1, l.min());
        assertEquals(2.5, l.median());
        assertEquals(4, l.p90());
        assertEquals(2.5, l.mean());
        assertEquals(4, l.runs());
    }

    @Test
    void p90IsTheNearestRank() {
        double[] ms = new double[20];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = 20 - i;
        }
        Latency l = Latency.of(ms);
        assertEquals(1, l.min());
        assertEquals(10.5, l.median());
        assertEquals(18, l.p90());
        assertEquals(10, Latency.of(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}).p90() + 1);
    }

    @Test
    void doesNotReorderTheCallersArray() {
        double[] ms = {3, 1, 2};
        Latency.of(ms);
        assertEquals(3, ms[0]);
    }
}
