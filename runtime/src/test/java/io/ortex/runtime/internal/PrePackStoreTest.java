package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.api.spi.PrePackedWeight;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The environment's shared pre-packed weights: keys by kernel and content, one pack under contention, release. */
class PrePackStoreTest {
    @Test
    void keysTellKernelsAndContentsApart() {
        Tensor w = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 2, 2);
        String k = PrePackStore.key("EP|MatMul(13+)|1", w);
        assertEquals(k, PrePackStore.key("EP|MatMul(13+)|1", Tensor.ofFloats(new float[] {1, 2, 3, 4}, 2, 2)));
        assertNotEquals(k, PrePackStore.key("EP|MatMul(13+)|0", w));
        assertNotEquals(k, PrePackStore.key("EP|MatMul(13+)|1", Tensor.ofFloats(new float[] {1, 2, 3, 5}, 2, 2)));
        assertNotEquals(k, PrePackStore.key("EP|MatMul(13+)|1", Tensor.ofFloats(new float[] {1, 2, 3, 4}, 4, 1)));
        assertNotEquals(k, PrePackStore.key("EP|MatMul(13+)|1", Tensor.ofInts(new int[] {1, 2, 3, 4}, 2, 2)));
        assertNull(PrePackStore.key("EP|X(1+)|0", Tensor.ofStrings(new String[] {"a"}, 1)));
    }

    @Test
    void threadsAcquiringTheSameKeyAtOncePackOnceAndTheLastReleaseFreesIt() throws Exception {
        PrePackStore store = new PrePackStore();
        AtomicInteger packs = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        ConcurrentLinkedQueue<PrePackedWeight> seen = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                seen.add(store.acquire("k", () -> {
                    packs.incrementAndGet();
                    return Optional.of(PrePackedWeight.of(new float[8], 32, released::incrementAndGet));
                }).orElseThrow());
            }));
        }
        threads.forEach(Thread::start);
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(1, packs.get());
        assertEquals(8, seen.size());
        PrePackedWeight first = seen.peek();
        seen.forEach(w -> assertSame(first, w));
        for (int i = 0; i < 7; i++) {
            store.release("k");
        }
        assertEquals(0, released.get());
        assertEquals(1, store.size());
        store.release("k");
        assertEquals(1, released.get());
        assertEquals(0, store.size());
        assertEquals(1, store.packsMade());
    }

    @Test
    void aKernelThatPacksNothingLeavesNothingHeld() {
        PrePackStore store = new PrePackStore();
        assertTrue(store.acquire("k", Optional::empty).isEmpty());
        assertEquals(0, store.size());
        store.release("k");
        assertEquals(0, store.packsMade());
    }
}
