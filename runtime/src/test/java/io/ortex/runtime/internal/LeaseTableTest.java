package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lease table on its own: leases all or none, closing to new leases, waiting for the holders. */
class LeaseTableTest {
    private final LeaseTable leases = new LeaseTable();
    private final EpLibrary a = library("a");
    private final EpLibrary b = library("b");

    private static EpLibrary library(String name) {
        return new EpLibrary(name, List.of(), null, false);
    }

    private static SessionLease session(int n) {
        return new SessionLease("s" + n, "(bytes)");
    }

    @Test
    void leasesAreAllOrNone() {
        leases.open(a);
        leases.open(b);
        leases.close(b, false);
        assertThrows(EpUnavailableException.class, () -> leases.acquire(session(1), List.of(a, b)));
        assertEquals(List.of(), leases.holders(a), "nothing taken on a when b refused");
        leases.acquire(session(2), List.of(a));
        assertEquals(List.of(session(2)), leases.holders(a));
        assertThrows(EpUnavailableException.class, () -> leases.acquire(session(3), List.of(library("unknown"))));
    }

    @Test
    void closingOnlyIfFreeLeavesAHeldLibraryOpen() {
        leases.open(a);
        leases.acquire(session(1), List.of(a));
        assertEquals(List.of(session(1)), leases.close(a, true));
        leases.acquire(session(2), List.of(a));
        assertEquals(2, leases.close(a, false).size());
        assertThrows(EpUnavailableException.class, () -> leases.acquire(session(3), List.of(a)));
        assertEquals(List.of(a), leases.closedHeldBy(session(1)));
        leases.reopen(a);
        leases.acquire(session(3), List.of(a));
    }

    @Test
    void awaitReturnsWhenTheLastHolderLeavesOrAtTheTimeout() throws Exception {
        leases.open(a);
        leases.open(b);
        leases.acquire(session(1), List.of(a, b));
        leases.close(a, false);
        assertEquals(List.of(session(1)), leases.await(a, Duration.ofMillis(50)));
        Thread later = new Thread(() -> {
            sleep(100);
            leases.retain(session(1), Set.of(b));
        });
        later.start();
        long t0 = System.nanoTime();
        assertEquals(List.of(), leases.await(a, Duration.ofSeconds(10)));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
        assertEquals(Set.of(b), leases.heldBy(session(1)));
        leases.release(session(1));
        assertEquals(Set.of(), leases.heldBy(session(1)));
    }

    /** Sessions leasing while a removal closes the library: every lease is either refused or seen by the removal. */
    @Test
    void noLeaseSlipsPastTheClose() throws Exception {
        for (int round = 0; round < 200; round++) {
            LeaseTable table = new LeaseTable();
            EpLibrary lib = library("lib" + round);
            table.open(lib);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger granted = new AtomicInteger();
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                tasks.add(pool.submit(() -> {
                    go.await();
                    try {
                        table.acquire(session(id), List.of(lib));
                        granted.incrementAndGet();
                    } catch (EpUnavailableException refused) {
                        // the removal came first
                    }
                    return null;
                }));
            }
            go.countDown();
            List<SessionLease> seen = table.close(lib, false);
            for (Future<?> f : tasks) {
                f.get(10, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertEquals(granted.get(), seen.size(), "round " + round + ": a lease was granted after the close");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
