package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.KernelContext;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IntraOpPoolTest {
    private static void assertCoversOnce(IntraOpPool pool, int count, int minChunk) {
        AtomicIntegerArray hits = new AtomicIntegerArray(Math.max(count, 0));
        pool.parallelFor(count, minChunk, (from, to) -> {
            assertTrue(0 <= from && from < to && to <= count, "chunk [" + from + ", " + to + ") of " + count);
            for (int i = from; i < to; i++) {
                hits.incrementAndGet(i);
            }
        });
        for (int i = 0; i < count; i++) {
            assertEquals(1, hits.get(i), "index " + i + " of " + count + " (minChunk " + minChunk + ")");
        }
    }

    @Test
    void coversEveryIndexExactlyOnce() {
        for (int threads : new int[] {1, 2, 3, 8}) {
            try (IntraOpPool pool = new IntraOpPool(threads)) {
                assertEquals(threads, pool.intraOpThreads());
                for (int count : new int[] {0, 1, 2, 7, 100, 1000, 4097}) {
                    for (int minChunk : new int[] {0, 1, 3, 64, 5000}) {
                        assertCoversOnce(pool, count, minChunk);
                    }
                }
            }
        }
    }

    @Test
    void aNegativeCountRunsNothing() {
        try (IntraOpPool pool = new IntraOpPool(4)) {
            pool.parallelFor(-5, 1, (from, to) -> {
                throw new AssertionError("called with [" + from + ", " + to + ")");
            });
        }
    }

    @Test
    void automaticThreadCountIsTheProcessorCount() {
        try (IntraOpPool pool = new IntraOpPool(0)) {
            assertEquals(Runtime.getRuntime().availableProcessors(), pool.intraOpThreads());
            assertCoversOnce(pool, 999, 1);
        }
    }

    @Test
    void usesSeveralThreadsWhenThereIsEnoughWork() {
        try (IntraOpPool pool = new IntraOpPool(4)) {
            Set<Thread> seen = ConcurrentHashMap.newKeySet();
            AtomicLong chunks = new AtomicLong();
            pool.parallelFor(4000, 1, (from, to) -> {
                seen.add(Thread.currentThread());
                chunks.incrementAndGet();
            });
            assertEquals(4 * IntraOpPool.CHUNKS_PER_THREAD, chunks.get(), "a few chunks per thread");
            assertTrue(seen.size() >= 1);
        }
    }

    @Test
    void fewItemsGetAChunkEach() {
        try (IntraOpPool pool = new IntraOpPool(2)) {
            // 12 items in the usual 8 chunks would mix chunks of one and two items
            int count = 2 * IntraOpPool.CHUNKS_PER_THREAD + 4;
            Set<Integer> sizes = ConcurrentHashMap.newKeySet();
            AtomicLong chunks = new AtomicLong();
            pool.parallelFor(count, 1, (from, to) -> {
                sizes.add(to - from);
                chunks.incrementAndGet();
            });
            assertEquals(count, chunks.get(), "one chunk per item");
            assertEquals(Set.of(1), sizes);
        }
    }

    @Test
    void aSmallJobGetsTheSameNumberOfChunksOnEveryThread() {
        try (IntraOpPool pool = new IntraOpPool(2)) {
            // three chunks' worth (a residual Add of 128 x 384 floats at 16384 a chunk) is cut into two halves
            AtomicLong chunks = new AtomicLong();
            Set<Integer> sizes = ConcurrentHashMap.newKeySet();
            pool.parallelFor(3 * 16384, 16384, (from, to) -> {
                sizes.add(to - from);
                chunks.incrementAndGet();
            });
            assertEquals(2, chunks.get());
            assertEquals(Set.of(3 * 16384 / 2), sizes);
        }
        try (IntraOpPool pool = new IntraOpPool(3)) {
            AtomicLong chunks = new AtomicLong();
            pool.parallelFor(2, 1, (from, to) -> chunks.incrementAndGet());
            assertEquals(2, chunks.get(), "fewer items than threads: one chunk each");
        }
    }

    @Test
    void noChunkIsSmallerThanTheMinimum() {
        try (IntraOpPool pool = new IntraOpPool(3)) {
            for (int count : new int[] {10, 99, 1000, 4097}) {
                for (int minChunk : new int[] {1, 7, 64, 300}) {
                    AtomicInteger smallest = new AtomicInteger(Integer.MAX_VALUE);
                    pool.parallelFor(count, minChunk, (from, to) -> smallest.accumulateAndGet(to - from, Math::min));
                    assertTrue(smallest.get() >= Math.min(minChunk, count),
                            count + " items, minimum " + minChunk + ": a chunk of " + smallest.get());
                }
            }
        }
    }

    @Test
    void aSlowThreadLeavesTheRestOfTheJobToTheOthers() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (IntraOpPool pool = new IntraOpPool(2)) {
                int chunks = 2 * IntraOpPool.CHUNKS_PER_THREAD;
                CountDownLatch othersDone = new CountDownLatch(chunks - 1);
                AtomicBoolean othersFinishedFirst = new AtomicBoolean();
                pool.parallelFor(chunks, 1, (from, to) -> {
                    if (from == 0) {
                        // the first chunk stalls until every other chunk is done: that can only happen when the
                        // other thread claims them all
                        try {
                            othersFinishedFirst.set(othersDone.await(10, TimeUnit.SECONDS));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    } else {
                        othersDone.countDown();
                    }
                });
                assertTrue(othersFinishedFirst.get(), "the other thread took the chunks the stalled one left");
            }
        });
    }

    @Test
    void eachThreadStartsWithTheSameShareOfTheChunksOnEveryCall() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (IntraOpPool pool = new IntraOpPool(2)) {
                Thread caller = Thread.currentThread();
                for (int job = 0; job < 20; job++) {
                    // four chunks, two per thread; each thread holds its first chunk until the other has started
                    // one, so that neither can take a chunk of the other's share before starting on its own
                    CountDownLatch bothStarted = new CountDownLatch(2);
                    Map<Thread, Integer> firstChunk = new ConcurrentHashMap<>();
                    pool.parallelFor(4, 1, (from, to) -> {
                        if (firstChunk.putIfAbsent(Thread.currentThread(), from) == null) {
                            bothStarted.countDown();
                            try {
                                bothStarted.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    });
                    assertEquals(2, firstChunk.size(), "job " + job + ": " + firstChunk);
                    assertEquals(0, firstChunk.get(caller), "job " + job + ": the caller's first chunk");
                    firstChunk.remove(caller);
                    assertEquals(2, firstChunk.values().iterator().next(), "job " + job + ": the worker's first chunk");
                }
            }
        });
    }

    @Test
    void nestedCallsDoNotDeadlock() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (IntraOpPool pool = new IntraOpPool(2)) {
                AtomicIntegerArray hits = new AtomicIntegerArray(64 * 64 * 8);
                pool.parallelFor(64, 1, (from, to) -> {
                    for (int i = from; i < to; i++) {
                        int outer = i;
                        pool.parallelFor(64, 1, (f2, t2) -> {
                            for (int j = f2; j < t2; j++) {
                                int middle = j;
                                pool.parallelFor(8, 1, (f3, t3) -> {
                                    for (int k = f3; k < t3; k++) {
                                        hits.incrementAndGet((outer * 64 + middle) * 8 + k);
                                    }
                                });
                            }
                        });
                    }
                });
                for (int i = 0; i < hits.length(); i++) {
                    assertEquals(1, hits.get(i), "index " + i);
                }
            }
        });
    }

    @Test
    void concurrentCallersShareThePool() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (IntraOpPool pool = new IntraOpPool(3)) {
                Thread[] callers = new Thread[6];
                Throwable[] failure = new Throwable[1];
                for (int t = 0; t < callers.length; t++) {
                    callers[t] = new Thread(() -> {
                        try {
                            for (int r = 0; r < 200; r++) {
                                assertCoversOnce(pool, 300 + r, 7);
                            }
                        } catch (Throwable e) {
                            synchronized (failure) {
                                failure[0] = e;
                            }
                        }
                    });
                    callers[t].start();
                }
                for (Thread t : callers) {
                    t.join();
                }
                if (failure[0] != null) {
                    throw failure[0];
                }
            }
        });
    }

    @Test
    void anExceptionInTheBodyReachesTheCaller() {
        try (IntraOpPool pool = new IntraOpPool(4)) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> pool.parallelFor(1000, 1, (from, to) -> {
                        if (from == 0) {
                            throw new IllegalStateException("chunk failed");
                        }
                    }));
            assertEquals("chunk failed", e.getMessage());
            assertCoversOnce(pool, 1000, 1);
        }
    }

    @Test
    void refusesThreadCountsAForkJoinPoolCannotHave() {
        for (int bad : new int[] {-1, IntraOpPool.MAX_THREADS + 1, Integer.MAX_VALUE}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> new IntraOpPool(bad));
            assertTrue(e.getMessage().contains("intra-op threads") && e.getMessage().contains(Integer.toString(bad)),
                    e.getMessage());
        }
    }

    @Test
    void manyShortJobsInARowEachCoverEveryIndexOnce() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (boolean spin : new boolean[] {true, false}) {
                try (IntraOpPool pool = new IntraOpPool(3, spin)) {
                    for (int r = 0; r < 20_000; r++) {
                        assertCoversOnce(pool, 3 + r % 5, 1);
                    }
                }
            }
        });
    }

    @Test
    void aCallAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(mx instanceof com.sun.management.ThreadMXBean,
                "this JVM does not count allocated bytes per thread");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        try (IntraOpPool pool = new IntraOpPool(2)) {
            AtomicLong sum = new AtomicLong();
            KernelContext.RangeBody body = (from, to) -> sum.addAndGet(to - from);
            for (int i = 0; i < 20_000; i++) {
                pool.parallelFor(100, 1, body);
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 10_000; i++) {
                pool.parallelFor(100, 1, body);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            assertTrue(allocated < 10_000, "10,000 calls allocated " + allocated + " bytes");
            assertEquals(30_000L * 100, sum.get());
        }
    }

    @Test
    void aClosedPoolRunsInline() {
        IntraOpPool pool = new IntraOpPool(4);
        pool.close();
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        pool.parallelFor(4000, 1, (from, to) -> seen.add(Thread.currentThread()));
        assertEquals(Set.of(Thread.currentThread()), seen);
    }
}
