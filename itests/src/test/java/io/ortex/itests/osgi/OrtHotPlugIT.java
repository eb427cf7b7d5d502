package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The ONNX Runtime EP bundle coming and going in a running framework on top of the ONNX Runtime bundle
 * ({@code com.microsoft.onnxruntime}), which is installed once: twenty install / update / uninstall cycles, each with
 * a session on the EP, never map a second copy of {@code libonnxruntime.so} into the process ({@code /proc/self/maps}),
 * leave no class loader of an EP revision reachable, and do not disturb sessions running on the CPU EP meanwhile;
 * {@code ortex:eps} shows the EP arrive, and drain while a session holds it.
 */
@RunWith(PaxExam.class)
public class OrtHotPlugIT extends OsgiTestSupport {
    private static final String ORT_EP = "OrtExecutionProvider";
    private static final String ORT_BUNDLE = "io.ortex.ep.ort";
    private static final int CYCLES = 20;

    /**
     * The framework of the other ITs plus the ONNX Runtime bundle, installed by reference (it is 55 MB).
     *
     * @return the options
     */
    @Override
    @org.ops4j.pax.exam.Configuration
    public Option[] configuration() {
        List<Option> o = new ArrayList<>(List.of(super.configuration()));
        o.add(bundle("reference:" + ortexJar("bundles/onnxruntime", "io.ortex.onnxruntime")));
        return o.toArray(new Option[0]);
    }

    @Override
    protected boolean withExampleBundle() {
        return false;
    }

    private static String ortJar() {
        return ortexJar("ep-bundles/ort", ORT_BUNDLE);
    }

    /** The distinct files mapped into this process whose name contains {@code name}. */
    private static Set<String> mapped(String name) throws IOException {
        Set<String> files = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int slash = line.indexOf('/');
            if (slash >= 0 && line.contains(name)) {
                files.add(line.substring(slash).replace(" (deleted)", ""));
            }
        }
        return files;
    }

    private static void runOnOrt(Environment env, int seed) {
        List<EpDevice> devices = devicesOf(env, ORT_EP);
        try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions().appendExecutionProvider(devices,
                Map.of()))) {
            assertEquals(List.of(ORT_EP, CPU_EP), s.executionProviders());
            assertTrue(s.assignment().stream().allMatch(a -> a.ep().equals(ORT_EP)));
            runAndCheck(s, seed);
        }
    }

    private void refresh(FrameworkWiring wiring) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        wiring.refreshBundles(null, e -> done.countDown());
        assertTrue("refresh finished", done.await(30, TimeUnit.SECONDS));
    }

    /** Twenty install/update/uninstall cycles load ONNX Runtime once, leak no class loader, and stop no session. */
    @Test
    public void twentyCyclesLoadOnnxRuntimeOnceAndLeakNothing() throws Exception {
        Environment env = environment();
        FrameworkWiring wiring = context.getBundle(0).adapt(FrameworkWiring.class);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong cpuRuns = new AtomicLong();
        List<Future<?>> background = new ArrayList<>();
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (int t = 0; t < 2; t++) {
                int seed = t;
                background.add(pool.submit(() -> {
                    try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions())) {
                        assertEquals(List.of(CPU_EP), s.executionProviders());
                        for (int n = 0; !stop.get(); n++) {
                            runAndCheck(s, seed * 1000 + n);
                            cpuRuns.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            // this JVM may hold copies loaded before this framework started (earlier test frameworks, ONNX Runtime
            // on the test class path): the cycles must add none beyond the one the ONNX Runtime bundle loads
            Set<String> before = mapped("libonnxruntime.so");
            Set<String> first = null;
            for (int i = 0; i < CYCLES; i++) {
                long runsBefore = cpuRuns.get();
                Bundle ort = context.installBundle(ortJar());
                ort.start();
                await(20_000, "cycle " + i + " offers the ONNX Runtime EP", () -> devicesOf(env, ORT_EP).size() == 1);
                runOnOrt(env, i);
                loaders.add(new WeakReference<>(ort.adapt(BundleWiring.class).getClassLoader()));
                ort.update();
                refresh(wiring);
                await(20_000, "cycle " + i + " offers the updated EP", () -> devicesOf(env, ORT_EP).size() == 1);
                runOnOrt(env, i + 100);
                loaders.add(new WeakReference<>(ort.adapt(BundleWiring.class).getClassLoader()));
                ort.uninstall();
                refresh(wiring);
                assertTrue("cycle " + i + " left devices", devicesOf(env, ORT_EP).isEmpty());
                Set<String> libs = mapped("libonnxruntime.so");
                if (first == null) {
                    first = libs;
                    Set<String> added = new TreeSet<>(libs);
                    added.removeAll(before);
                    assertEquals("the ONNX Runtime bundle loaded one copy: " + added, 1, added.size());
                }
                assertEquals("cycle " + i + ": the copies of libonnxruntime.so mapped", first, libs);
                await(10_000, "CPU sessions keep running in cycle " + i, () -> cpuRuns.get() > runsBefore);
            }
            stop.set(true);
            for (Future<?> f : background) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
        long deadline = System.currentTimeMillis() + 30_000;
        while (loaders.stream().anyMatch(r -> r.get() != null) && System.currentTimeMillis() < deadline) {
            System.gc();
            Thread.sleep(100);
        }
        long leaked = loaders.stream().filter(r -> r.get() != null).count();
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        System.out.println("OrtHotPlugIT: " + CYCLES + " install/update/uninstall cycles in " + seconds + " s; "
                + cpuRuns.get() + " CPU EP runs meanwhile; copies of libonnxruntime.so mapped, unchanged through "
                + "the cycles: " + mapped("libonnxruntime.so") + "; class loaders still reachable: " + leaked + " of "
                + loaders.size());
        assertEquals("class loaders of ONNX Runtime EP revisions still reachable", 0, leaked);
    }

    /** ortex:eps lists the EP when its bundle arrives, and DRAINING with the holder while a session keeps it. */
    @Test
    public void ortexEpsShowsTheEpArriveAndDrain() throws Exception {
        // a drain long enough to watch, bounded so that a failure cannot block the framework's stop for long
        configure("drain.outcome", "fail", "drain.limit.seconds", "20");
        Environment env = environment();
        assertTrue(!gogo("ortex:eps").contains(ORT_EP));
        Bundle ort = context.installBundle(ortJar());
        ort.start();
        await(20_000, "the EP arrives", () -> devicesOf(env, ORT_EP).size() == 1);
        String arrived = gogo("ortex:eps");
        assertTrue(arrived, arrived.lines().anyMatch(l -> l.startsWith(ORT_EP) && l.contains(" ACTIVE ")));
        Path model = Files.createTempFile("tiny", ".onnx");
        Files.write(model, TinyModel.bytes());
        ExecutorService remover = Executors.newSingleThreadExecutor();
        String id = sessionId(gogo("ortex:open " + model + " --ep " + ORT_EP));
        try {
            Future<?> uninstall = remover.submit(() -> {
                ort.uninstall();
                return null;
            });
            String[] last = {""};
            try {
                await(20_000, "the EP drains", () -> {
                    try {
                        last[0] = gogo("ortex:eps");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return last[0].lines().anyMatch(l -> l.startsWith(ORT_EP) && l.contains("DRAINING")
                            && l.contains(id));
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; ortex:eps said:\n" + last[0], e);
            }
            System.out.println("OrtHotPlugIT: ortex:eps while " + id + " holds the uninstalled EP:\n" + last[0]);
            assertTrue("the uninstall waits for the session", !uninstall.isDone());
            assertTrue(gogo("ortex:close " + id).contains("closed " + id));
            uninstall.get(30, TimeUnit.SECONDS);
            assertTrue(!gogo("ortex:eps").contains(ORT_EP));
        } catch (Exception | AssertionError e) {
            System.out.println("OrtHotPlugIT: " + e);
            throw e;
        } finally {
            gogo("ortex:close " + id);
            remover.shutdownNow();
            Files.deleteIfExists(model);
        }
    }

    /** The session id {@code ortex:open} printed, among whatever else went to standard output meanwhile. */
    private static String sessionId(String printed) {
        return printed.lines().map(String::strip).filter(l -> l.matches("s\\d+")).findFirst()
                .orElseThrow(() -> new AssertionError("no session id in: " + printed));
    }

    private String gogo(String command) throws Exception {
        ServiceTracker<CommandProcessor, CommandProcessor> t = new ServiceTracker<>(context, CommandProcessor.class,
                null);
        t.open();
        try {
            CommandProcessor processor = t.waitForService(10_000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, out);
            try {
                session.execute(command);
            } finally {
                session.close();
            }
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            t.close();
        }
    }
}
