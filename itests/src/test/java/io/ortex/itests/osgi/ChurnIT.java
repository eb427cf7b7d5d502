package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * Load and churn: eight threads run sessions (short ones that select the example EP's NPU whenever it is there, and
 * long ones that migrate off it when it goes) while the example EP bundle is installed, started, stopped, started,
 * updated, stopped and uninstalled, cycle after cycle. Every result equals the single-threaded reference; no run or
 * session fails; no operation hangs; afterwards the bundles' class loaders are collected and the framework's threads,
 * open files and heap are back where they were.
 *
 * <p>A normal build runs {@value #DEFAULT_CYCLES} cycles; {@code -Dortex.churn.cycles=100} runs the long variant.
 * The counts are printed as {@code ChurnIT: ...}.
 */
@RunWith(PaxExam.class)
public class ChurnIT extends OsgiTestSupport {
    private static final int THREADS = 8;
    private static final int DEFAULT_CYCLES = 10;
    private static final float TOLERANCE = 1e-5f;

    @Override
    protected boolean withExampleBundle() {
        return false;
    }

    @Test
    public void sessionsKeepRunningCorrectlyWhileAnEpBundleComesAndGoes() throws Exception {
        int cycles = Integer.getInteger("ortex.churn.cycles", DEFAULT_CYCLES);
        configure("virtual.grants", EXAMPLE_BUNDLE, "drain.limit.seconds", 60L);
        Environment env = environment();
        FrameworkWiring wiring = context.getBundle(0).adapt(FrameworkWiring.class);

        // warm up: one session on the NPU and one on the CPU, so that lazily made threads and files exist already
        Bundle first = context.installBundle(exampleJar());
        first.start();
        await(10_000, "the NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        runOnce(env, true);
        first.uninstall();
        refresh(wiring);
        runOnce(env, false);
        gc();
        Set<Thread> threadsBefore = liveThreads();
        long filesBefore = openFiles();
        long heapBefore = usedHeap();

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong runs = new AtomicLong();
        AtomicLong npuRuns = new AtomicLong();
        AtomicLong sessions = new AtomicLong();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch started = new CountDownLatch(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        long heapMiddle = 0;
        long t0 = System.nanoTime();
        try {
            for (int t = 0; t < THREADS; t++) {
                boolean longLived = t % 2 == 1;
                int seed = t * 1000;
                workers.add(pool.submit(() -> work(env, longLived, seed, stop, started, runs, npuRuns, sessions,
                        failures)));
            }
            assertTrue("the workers start", started.await(60, TimeUnit.SECONDS));
            for (int i = 0; i < cycles; i++) {
                Bundle b = context.installBundle(exampleJar());
                b.start();
                awaitNpu(env, true, i);
                Thread.sleep(150);
                b.stop();
                awaitNpu(env, false, i);
                b.start();
                awaitNpu(env, true, i);
                b.update();
                awaitNpu(env, true, i);
                Thread.sleep(150);
                loaders.add(new WeakReference<>(b.adapt(BundleWiring.class).getClassLoader()));
                b.stop();
                b.uninstall();
                awaitNpu(env, false, i);
                refresh(wiring);
                if (i == cycles / 2) {
                    heapMiddle = usedHeap();
                }
            }
        } finally {
            stop.set(true);
            for (Future<?> f : workers) {
                try {
                    f.get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    failures.add("a worker did not stop within 60 s: " + threadDump());
                }
            }
            pool.shutdownNow();
            assertTrue("the worker pool ends", pool.awaitTermination(30, TimeUnit.SECONDS));
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        assertTrue("failures: " + failures, failures.isEmpty());
        assertEquals(null, installed(EXAMPLE_BUNDLE));
        assertEquals(List.of(CPU_EP), env.epDevices().stream().map(d -> d.epName()).toList());

        long deadline = System.currentTimeMillis() + 30_000;
        while (loaders.stream().anyMatch(r -> r.get() != null) && System.currentTimeMillis() < deadline) {
            gc();
        }
        long leakedLoaders = loaders.stream().filter(r -> r.get() != null).count();
        Set<Thread> extra = new HashSet<>();
        long files = 0;
        deadline = System.currentTimeMillis() + 10_000;
        do {
            gc();
            extra = liveThreads();
            extra.removeAll(threadsBefore);
            files = openFiles();
        } while ((!extra.isEmpty() || files > filesBefore) && System.currentTimeMillis() < deadline);
        long heapAfter = usedHeap();
        System.out.println("ChurnIT: " + cycles + " cycles (install, start, stop, start, update, stop, uninstall) in "
                + seconds + " s; " + THREADS + " threads, " + sessions.get() + " sessions, " + runs.get()
                + " runs (" + npuRuns.get() + " on the NPU), 0 failures; class loaders left " + leakedLoaders + " of "
                + loaders.size() + "; threads " + threadsBefore.size() + " -> " + (threadsBefore.size() + extra.size())
                + "; open files " + filesBefore + " -> " + files + "; heap after GC " + mb(heapBefore) + " -> "
                + mb(heapMiddle) + " (half-way) -> " + mb(heapAfter) + " MB");
        assertEquals("class loaders of the example bundle's revisions still reachable", 0, leakedLoaders);
        assertTrue("threads left behind: " + extra, extra.isEmpty());
        assertTrue("open files " + filesBefore + " -> " + files, files <= filesBefore);
        assertTrue("heap grows: " + mb(heapMiddle) + " MB half-way, " + mb(heapAfter) + " MB at the end",
                heapAfter <= heapMiddle + (32L << 20));
        assertTrue("every worker ran", runs.get() >= THREADS);
    }

    /**
     * One worker: short sessions that take the NPU whenever it is offered, or one long session at a time that
     * migrates off the NPU when its bundle goes; each run's output is checked against the reference.
     */
    private static Void work(Environment env, boolean longLived, int seed, AtomicBoolean stop, CountDownLatch started,
                             AtomicLong runs, AtomicLong npuRuns, AtomicLong sessions,
                             ConcurrentLinkedQueue<String> failures) {
        int n = 0;
        boolean counted = false;
        try {
            while (!stop.get()) {
                SessionOptions options = new SessionOptions()
                        .selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU).intraOpThreads(1);
                if (longLived) {
                    options.config(SessionOptions.MIGRATE_ON_EP_REMOVAL, "1");
                }
                try (Session s = env.createSession(TinyModel.bytes(), options)) {
                    sessions.incrementAndGet();
                    int perSession = longLived ? 200 : 5;
                    for (int k = 0; k < perSession && !stop.get(); k++) {
                        boolean npu = s.executionProviders().contains(EXAMPLE_EP);
                        check(s, seed + n++);
                        runs.incrementAndGet();
                        if (npu) {
                            npuRuns.incrementAndGet();
                        }
                        if (!counted) {
                            started.countDown();
                            counted = true;
                        }
                    }
                }
            }
        } catch (Throwable e) {
            failures.add((longLived ? "long" : "short") + " worker " + seed + ": " + e);
            if (!counted) {
                started.countDown();
            }
        }
        return null;
    }

    private static void check(Session s, int seed) {
        float[] x = TinyModel.input(seed);
        float[] y = s.run(Map.of(TinyModel.INPUT, Tensor.ofFloats(x, 1, TinyModel.WIDTH))).get(TinyModel.OUTPUT)
                .floats();
        float[] want = TinyModel.reference(x);
        for (int i = 0; i < want.length; i++) {
            if (Math.abs(y[i] - want[i]) > TOLERANCE) {
                throw new AssertionError("run " + seed + " output " + i + ": " + y[i] + " != " + want[i] + " on "
                        + s.executionProviders());
            }
        }
    }

    private static void runOnce(Environment env, boolean npu) {
        try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions()
                .selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU).intraOpThreads(1))) {
            assertEquals(npu, s.executionProviders().contains(EXAMPLE_EP));
            check(s, 1);
        }
    }

    private static void awaitNpu(Environment env, boolean offered, int cycle) throws InterruptedException {
        await(30_000, "cycle " + cycle + ": the NPU is " + (offered ? "offered" : "gone"),
                () -> devicesOf(env, EXAMPLE_EP).isEmpty() != offered);
    }

    private static void refresh(FrameworkWiring wiring) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        wiring.refreshBundles(null, e -> done.countDown());
        if (!done.await(30, TimeUnit.SECONDS)) {
            fail("a refresh did not end within 30 s: " + threadDump());
        }
    }

    private static Set<Thread> liveThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive()) {
                threads.add(t);
            }
        }
        return threads;
    }

    /** The file descriptors this process has open (Linux), or 0 where the count is not available. */
    private static long openFiles() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? 0 : fds.length;
    }

    private static long usedHeap() {
        gc();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static void gc() {
        System.gc();
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long mb(long bytes) {
        return bytes >> 20;
    }

    private static String threadDump() {
        StringBuilder sb = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            sb.append('\n').append(t.getName()).append(' ').append(t.getState());
            for (int i = 0; i < Math.min(stack.length, 12); i++) {
                sb.append("\n    at ").append(stack[i]);
            }
        });
        return sb.toString();
    }
}
