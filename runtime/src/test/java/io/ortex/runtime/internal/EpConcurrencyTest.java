package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpInUseException;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sessions run on many threads while an EP library is registered and unregistered over and over; EPs that refuse
 * concurrent runs.
 */
class EpConcurrencyTest {
    private static final String EP = "ChurnMulEP";
    private static final String LIBRARY = "churn";
    private static final int WORKERS = 8;
    private static final long DURATION_MS = 2500;

    @TempDir
    static Path dir;
    static Path jar;

    @BeforeAll
    static void compilePlugin() throws Exception {
        jar = new PluginJar().epName(EP).build(dir, "churn-ep.jar");
    }

    /** Runs a session on random inputs and returns what is wrong with the result, or null. */
    private static String runAndCheck(Session s, Random random) {
        float[] x = new float[6];
        float[] y = new float[6];
        for (int i = 0; i < 6; i++) {
            x[i] = random.nextInt(21) - 10;
            y[i] = random.nextInt(21) - 10;
        }
        float[] got = s.run(Map.of("x", Tensor.ofFloats(x, 2, 3), "y", Tensor.ofFloats(y, 2, 3))).get("out").floats();
        float[] want = TestModels.addMulReluExpected(x, y);
        boolean same = want.length == got.length;
        for (int i = 0; same && i < want.length; i++) {
            same = want[i] == got[i]; // Relu may give -0.0 where the reference gives 0.0
        }
        return same ? null
                : "session " + s.id() + " on " + s.executionProviders() + " computed " + java.util.Arrays.toString(got)
                + " instead of " + java.util.Arrays.toString(want);
    }

    @Test
    void runsNeverFailWhileAnotherEpLibraryIsRegisteredAndUnregistered() throws Exception {
        byte[] model = TestModels.addMulRelu().bytes();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger pluginSessions = new AtomicInteger();
        AtomicInteger registrations = new AtomicInteger();
        AtomicInteger unregistrations = new AtomicInteger();
        AtomicInteger refusals = new AtomicInteger();
        try (RuntimeEnvironment env = LibraryRegistrationTest.newEnvironment(Map.of())) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DURATION_MS);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                int seed = w;
                threads.add(new Thread(() -> {
                    Random random = new Random(seed);
                    try (Session longLived = env.createSession(model, new SessionOptions())) {
                        start.await();
                        for (int i = 0; System.nanoTime() < end; i++) {
                            record(failures, runAndCheck(longLived, random));
                            runs.incrementAndGet();
                            SessionOptions o = i % 2 == 0 ? new SessionOptions()
                                    : new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_CPU);
                            try (Session s = env.createSession(model, o)) {
                                if (s.executionProviders().contains(EP)) {
                                    pluginSessions.incrementAndGet();
                                }
                                for (int k = 0; k < 2; k++) {
                                    record(failures, runAndCheck(s, random));
                                    runs.incrementAndGet();
                                }
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(Thread.currentThread().getName() + ": " + t);
                    }
                }, "worker-" + w));
            }
            threads.add(new Thread(() -> {
                Random random = new Random(99);
                try {
                    start.await();
                    for (int i = 0; System.nanoTime() < end; i++) {
                        env.registerLibrary(LIBRARY, jar);
                        registrations.incrementAndGet();
                        switch (i % 3) {
                            case 0 -> {
                                SessionOptions explicit = new SessionOptions().appendExecutionProvider(
                                        LibraryRegistrationTest.devicesOf(env, EP), Map.of());
                                try (Session s = env.createSession(model, explicit)) {
                                    record(failures, runAndCheck(s, random));
                                    try {
                                        env.unregisterLibrary(LIBRARY);
                                        failures.add("unregistration succeeded under session " + s.id());
                                    } catch (EpInUseException e) {
                                        refusals.incrementAndGet();
                                    }
                                }
                                env.unregisterLibrary(LIBRARY, Duration.ofSeconds(10));
                            }
                            case 1 -> {
                                try {
                                    env.unregisterLibrary(LIBRARY);
                                } catch (EpInUseException e) {
                                    refusals.incrementAndGet();
                                    env.unregisterLibrary(LIBRARY, Duration.ofSeconds(10));
                                }
                            }
                            default -> {
                                Thread.sleep(2);
                                env.unregisterLibrary(LIBRARY, Duration.ofSeconds(10));
                            }
                        }
                        unregistrations.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failures.add("churn: " + t);
                }
            }, "churn"));
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(t.isAlive(), t.getName() + " is stuck");
            }
            assertEquals(List.of(), List.copyOf(failures));
            assertEquals(List.of(), PluginCalls.violations(EP), "calls into a released plugin");
            assertTrue(runs.get() > WORKERS, "runs: " + runs);
            assertTrue(registrations.get() > 3, "registrations: " + registrations);
            assertEquals(registrations.get(), unregistrations.get());
            assertTrue(refusals.get() > 0, "no unregistration was refused");
            assertTrue(pluginSessions.get() > 0, "no worker session used the plugin EP");
            assertEquals(List.of(CpuEpFactory.NAME + " ACTIVE []"), env.libraries());
        }
    }

    private static void record(ConcurrentLinkedQueue<String> failures, String failure) {
        if (failure != null) {
            failures.add(failure);
        }
    }

    /**
     * Runs a session on 8 threads whose only non-CPU EP says whether it supports concurrent runs, and returns the most
     * computes of that EP seen at once. Each compute counts {@code meet} down and waits up to {@code waitMs} for it to
     * reach zero, so that two computes that may overlap do.
     */
    private static int maxOverlap(boolean concurrent, CountDownLatch meet, long waitMs) throws Exception {
        AtomicInteger active = new AtomicInteger();
        AtomicInteger maxActive = new AtomicInteger();
        List<FakeEp> eps = new ArrayList<>();
        CountingEpFactory factory = new CountingEpFactory("SerialEP", () -> {
            FakeEp ep = new FakeEp("SerialEP", (g, s) -> g.nodes().stream()
                    .filter(n -> n.opType().equals("Mul")).forEach(s::addSingleNode))
                    .concurrentRuns(concurrent)
                    .onCompute(() -> {
                        maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
                        try {
                            meet.countDown();
                            meet.await(waitMs, TimeUnit.MILLISECONDS);
                            Thread.sleep(1);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            active.decrementAndGet();
                        }
                    });
            eps.add(ep);
            return ep;
        });
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(TestDevices.CPU),
                List.of(new CpuEpFactory(), factory));
             Session s = env.createSession(TestModels.addMulRelu().bytes(), new SessionOptions()
                     .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "SerialEP"), Map.of()))) {
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                int seed = w;
                threads.add(new Thread(() -> {
                    Random random = new Random(seed);
                    try {
                        for (int i = 0; i < 25; i++) {
                            record(failures, runAndCheck(s, random));
                        }
                    } catch (Throwable t) {
                        failures.add(t.toString());
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertEquals(List.of(), List.copyOf(failures));
            assertEquals(WORKERS * 25, eps.get(0).computeCalls.get());
        }
        return maxActive.get();
    }

    @Test
    void anEpThatRefusesConcurrentRunsNeverSeesTwoRunsOfItsSessionAtOnce() throws Exception {
        assertEquals(1, maxOverlap(false, new CountDownLatch(2), 0));
    }

    @Test
    void anEpThatAllowsConcurrentRunsIsRunOnSeveralThreadsAtOnce() throws Exception {
        CountDownLatch meet = new CountDownLatch(2);
        assertTrue(maxOverlap(true, meet, 10_000) >= 2, "two computes never ran at once");
    }

    @Test
    void closingIsNotStarvedByRunsThatKeepComing() throws Exception {
        CountingEpFactory factory = new CountingEpFactory("SlowEP", () -> new FakeEp("SlowEP", (g, s) -> g.nodes()
                .stream().filter(n -> n.opType().equals("Mul")).forEach(s::addSingleNode)).onCompute(() -> {
                    try {
                        Thread.sleep(3);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger runsAfterClose = new AtomicInteger();
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(TestDevices.CPU),
                List.of(new CpuEpFactory(), factory))) {
            Session s = env.createSession(TestModels.addMulRelu().bytes(), new SessionOptions()
                    .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "SlowEP"), Map.of()));
            java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
            List<Thread> runners = new ArrayList<>();
            for (int w = 0; w < 6; w++) {
                int seed = w;
                runners.add(new Thread(() -> {
                    Random random = new Random(seed);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (System.nanoTime() < deadline) {
                        boolean wasClosed = closed.get();
                        try {
                            record(failures, runAndCheck(s, random));
                            if (wasClosed) {
                                runsAfterClose.incrementAndGet();
                            }
                        } catch (io.ortex.api.OrtexException e) {
                            return;
                        }
                    }
                    failures.add("runs were never refused");
                }));
            }
            runners.forEach(Thread::start);
            Thread.sleep(100);
            long t0 = System.nanoTime();
            Thread closer = new Thread(() -> {
                s.close();
                closed.set(true);
            });
            closer.start();
            closer.join(TimeUnit.SECONDS.toMillis(5));
            assertFalse(closer.isAlive(), "close is starved by runs that keep coming");
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
            for (Thread t : runners) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertEquals(List.of(), List.copyOf(failures));
            assertEquals(0, runsAfterClose.get(), "a run completed after close returned");
            assertEquals(1, factory.released.get());
        }
    }
}
