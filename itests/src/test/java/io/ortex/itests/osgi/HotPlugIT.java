package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * EP bundles coming and going at run time: installing one while sessions run changes nothing for them, and
 * installing and uninstalling one many times leaves no devices and no class loaders behind.
 */
@RunWith(PaxExam.class)
public class HotPlugIT extends OsgiTestSupport {
    private static final int THREADS = 8;
    private static final int CYCLES = 50;

    @Override
    protected boolean withExampleBundle() {
        return false;
    }

    /** Eight threads open sessions and run them while the example EP bundle is installed and started. */
    @Test
    public void installingAnEpBundleWhileSessionsRunChangesNothingForThem() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE);
        Environment env = environment();
        assertTrue(devicesOf(env, EXAMPLE_EP).isEmpty());
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch running = new CountDownLatch(THREADS);
        List<Future<Integer>> runs = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                int seed = t;
                runs.add(pool.submit(() -> {
                    int n = 0;
                    try (Session s = env.createSession(TinyModel.bytes(),
                            new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
                        assertEquals(List.of(CPU_EP), s.executionProviders());
                        do {
                            runAndCheck(s, seed + n);
                            if (++n == 5) {
                                running.countDown();
                            }
                        } while (!stop.get() || n < 5);
                        assertEquals(List.of(CPU_EP), s.executionProviders());
                    }
                    return n;
                }));
            }
            assertTrue(running.await(30, TimeUnit.SECONDS));
            Bundle example = context.installBundle(exampleJar());
            example.start();
            await(10_000, "the new bundle offers its NPU", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
            Thread.sleep(500);
            stop.set(true);
            for (Future<Integer> f : runs) {
                assertTrue(f.get(30, TimeUnit.SECONDS) >= 5);
            }
            try (Session s = env.createSession(TinyModel.bytes(),
                    new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
                assertEquals("new sessions see the new EP", List.of(EXAMPLE_EP, CPU_EP), s.executionProviders());
                runAndCheck(s, 99);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    /** Fifty install/uninstall cycles leave no stale device, and every cycle's class loader is collected. */
    @Test
    public void reinstallingManyTimesLeavesNothingBehind() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE);
        Environment env = environment();
        FrameworkWiring wiring = context.getBundle(0).adapt(FrameworkWiring.class);
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < CYCLES; i++) {
            Bundle example = context.installBundle(exampleJar());
            example.start();
            await(10_000, "cycle " + i + " offers the NPU", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
            if (i % 10 == 0) {
                try (Session s = env.createSession(TinyModel.bytes(),
                        new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
                    assertEquals(List.of(EXAMPLE_EP, CPU_EP), s.executionProviders());
                    runAndCheck(s, i);
                }
            }
            loaders.add(new WeakReference<>(example.adapt(BundleWiring.class).getClassLoader()));
            example.uninstall();
            assertTrue("cycle " + i + " left devices", devicesOf(env, EXAMPLE_EP).isEmpty());
        }
        CountDownLatch refreshed = new CountDownLatch(1);
        wiring.refreshBundles(null, e -> refreshed.countDown());
        assertTrue(refreshed.await(30, TimeUnit.SECONDS));
        assertTrue(wiring.getRemovalPendingBundles().isEmpty());
        assertNull(installed(EXAMPLE_BUNDLE));
        assertEquals(1, env.epDevices().size());
        long deadline = System.currentTimeMillis() + 20_000;
        while (loaders.stream().anyMatch(r -> r.get() != null) && System.currentTimeMillis() < deadline) {
            System.gc();
            Thread.sleep(100);
        }
        long leaked = loaders.stream().filter(r -> r.get() != null).count();
        assertEquals("class loaders of uninstalled example bundles still reachable", 0, leaked);
        assertTrue("bounded in time", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 120);
    }
}
