package io.ortex.serve.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts events per second over the last minute, for a request rate. Each of 60 slots packs the second it counts
 * (high 32 bits) and its count (low 32 bits) into one long, so recording is one compare-and-set without locks and
 * a slot reused for a new second never mixes counts of two seconds. Thread safe.
 */
final class RecentRate {
    /** The seconds the rate is taken over. */
    static final int WINDOW_SECONDS = 60;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;

    private final long startNanos;
    private final AtomicLongArray slots = new AtomicLongArray(WINDOW_SECONDS);

    /**
     * Creates a rate with no events.
     *
     * @param startNanos when counting starts, on {@link System#nanoTime()}'s clock
     */
    RecentRate(long startNanos) {
        this.startNanos = startNanos;
        for (int i = 0; i < WINDOW_SECONDS; i++) {
            slots.set(i, -1L << 32);  // second -1 (as unsigned, never current): empty
        }
    }

    private long second(long nanos) {
        return (nanos - startNanos) / 1_000_000_000L;
    }

    /**
     * Counts one event.
     *
     * @param nanos when it happened, on {@link System#nanoTime()}'s clock
     */
    void record(long nanos) {
        long second = second(nanos);
        int i = (int) (second % WINDOW_SECONDS);
        long stamp = (second & COUNT_MASK) << 32;
        while (true) {
            long v = slots.get(i);
            long next = (v & ~COUNT_MASK) == stamp ? v + 1 : stamp | 1;
            if (slots.compareAndSet(i, v, next)) {
                return;
            }
        }
    }

    /**
     * Gets the events per second over the last {@value #WINDOW_SECONDS} seconds, the current one included (over
     * the time since counting started when that is shorter).
     *
     * @param nanos now, on {@link System#nanoTime()}'s clock
     * @return the rate
     */
    double perSecond(long nanos) {
        long now = second(nanos);
        long events = 0;
        for (int i = 0; i < WINDOW_SECONDS; i++) {
            long v = slots.get(i);
            long s = v >>> 32;
            long age = ((now & COUNT_MASK) - s) & COUNT_MASK;
            if (age < WINDOW_SECONDS) {
                events += v & COUNT_MASK;
            }
        }
        double seconds = Math.min(WINDOW_SECONDS, (nanos - startNanos) / 1e9);
        return events / Math.max(1.0, seconds);
    }
}
