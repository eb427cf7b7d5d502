package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.EpInUseException;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.HardwareDevice;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuEpFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session migration ({@link SessionOptions#MIGRATE_ON_EP_REMOVAL}): a session holding a fake EP that claims the Add
 * nodes is moved onto the CPU EP when the fake EP's library is removed, while threads keep running it; without the
 * option the removal waits for the session or fails it, as before.
 */
class SessionMigrationTest {
    private static final String EP = "FakeEP";
    private static final String LIBRARY = "fake.bundle";
    private static final float[] X = {1, 2, 3, 4, 5, 6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};
    private static final int THREADS = 4;

    private final List<FakeEp> eps = Collections.synchronizedList(new ArrayList<>());
    private final WatchedFactory factory = new WatchedFactory();

    /** The fake EP's factory, which counts the calls it receives once its library was removed. */
    private final class WatchedFactory extends CountingEpFactory {
        volatile boolean gone;
        final AtomicInteger callsAfterGone = new AtomicInteger();

        WatchedFactory() {
            super(EP, SessionMigrationTest.this::newEp);
        }

        private void check() {
            if (gone) {
                callsAfterGone.incrementAndGet();
            }
        }

        @Override
        public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
            check();
            return super.supportedDevices(hardware, config);
        }

        @Override
        public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
            check();
            return super.createEp(devices, sessionConfig);
        }

        @Override
        public void releaseEp(ExecutionProvider ep) {
            check();
            super.releaseEp(ep);
        }

        @Override
        public Optional<DataTransfer> dataTransfer() {
            check();
            return super.dataTransfer();
        }
    }

    private ExecutionProvider newEp() {
        FakeEp ep = new FakeEp(EP, (g, s) -> g.nodes().stream().filter(n -> n.opType().equals("Add"))
                .forEach(s::addSingleNode));
        // keep the kernels busy for a moment, so that the removal finds runs in flight on the fake EP
        ep.onCompute(() -> sleep(1));
        eps.add(ep);
        return ep;
    }

    private static RuntimeEnvironment newEnvironment() {
        RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU));
        env.registerFactories("cpu.bundle", List.of(new CpuEpFactory()), false);
        return env;
    }

    private static Session open(RuntimeEnvironment env, String migrate) {
        List<EpDevice> devices = env.epDevices().stream().filter(d -> d.epName().equals(EP)).toList();
        SessionOptions options = new SessionOptions().appendExecutionProvider(devices, Map.of());
        if (migrate != null) {
            options.config(SessionOptions.MIGRATE_ON_EP_REMOVAL, migrate);
        }
        return env.createSession(TestModels.addMulAdd().bytes(), options);
    }

    private static void checkRun(Session s) {
        Map<String, Tensor> out = s.run(Map.of("x", Tensor.ofFloats(X, 2, 3), "y", Tensor.ofFloats(Y, 2, 3)));
        assertArrayEquals(TestModels.addMulAddExpected(X, Y), out.get("out").floats());
    }

    private static List<String> assignedEps(Session s) {
        return s.assignment().stream().map(NodeAssignment::ep).distinct().toList();
    }

    private int computeCalls() {
        synchronized (eps) {
            return eps.stream().mapToInt(e -> e.computeCalls.get()).sum();
        }
    }

    /** Threads that run a session over and over, checking every result, until stopped. */
    private static final class Runners implements AutoCloseable {
        final AtomicInteger runs = new AtomicInteger();
        final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Thread> threads = new ArrayList<>();

        Runners(Session s) {
            for (int i = 0; i < THREADS; i++) {
                Thread t = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            checkRun(s);
                            runs.incrementAndGet();
                        } catch (Throwable e) {
                            failures.add(e);
                            return;
                        }
                    }
                }, "runner-" + i);
                t.start();
                threads.add(t);
            }
        }

        /** Waits until the threads have done {@code more} runs beyond now, or one of them failed. */
        void awaitRuns(int more) {
            int target = runs.get() + more;
            awaitTrue(() -> runs.get() >= target || !failures.isEmpty());
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
    }

    private static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out");
            sleep(2);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void unregisteringMovesARunningSessionOntoTheCpuEpWithoutAnError() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories(LIBRARY, List.of(factory), false);
            try (Session s = open(env, "1")) {
                assertEquals(List.of(EP, RuntimeEnvironment.CPU_EP), s.executionProviders());
                assertEquals(List.of(EP, RuntimeEnvironment.CPU_EP), assignedEps(s));
                long gone;
                int computedBefore;
                try (Runners runners = new Runners(s)) {
                    runners.awaitRuns(40);
                    computedBefore = computeCalls();
                    assertTrue(computedBefore > 0, "the fake EP ran the Add nodes");
                    long start = System.nanoTime();
                    env.unregisterLibrary(LIBRARY, Duration.ofSeconds(30));
                    gone = System.nanoTime() - start;
                    factory.gone = true;
                    computedBefore = computeCalls();
                    runners.awaitRuns(200);
                    runners.close();
                    assertEquals(List.of(), runners.failures, "no run failed");
                }
                assertTrue(gone < TimeUnit.SECONDS.toNanos(5), "the unregistration took " + gone / 1_000_000 + " ms");
                assertEquals(List.of(RuntimeEnvironment.CPU_EP), s.executionProviders());
                assertEquals(List.of(RuntimeEnvironment.CPU_EP), assignedEps(s));
                checkRun(s);
                assertEquals(computedBefore, computeCalls(), "no fake kernel ran after the unregistration");
                assertEquals(1, factory.created.get());
                assertEquals(1, factory.released.get(), "the fake EP was released before the library");
                assertEquals(0, factory.callsAfterGone.get(), "the factory was not called after its removal");
                assertTrue(eps.stream().allMatch(e -> e.callsAfterRelease.get() == 0));
                assertTrue(env.libraries().stream().noneMatch(l -> l.startsWith(LIBRARY)), env.libraries().toString());
                assertTrue(env.epDevices().stream().noneMatch(d -> d.epName().equals(EP)));
            }
            assertEquals(1, factory.released.get(), "closing the session releases only the CPU EP");
        }
    }

    @Test
    void aSessionFromAFileMovesWithTheWeightsItLeftInTheFile(@TempDir Path folder) throws Exception {
        int n = 40_000;
        float[] b = new float[n];
        float[] x = new float[n];
        float[] expected = new float[n];
        for (int i = 0; i < n; i++) {
            b[i] = i * 0.25f;
            x[i] = 1 - i;
            expected[i] = x[i] + b[i];
        }
        Path file = Files.write(folder.resolve("add.onnx"), TestModels.builder()
                .input("x", TestModels.FLOAT, n)
                .floats("b", new long[] {n}, b)
                .node("Add", "add", List.of("x", "b"), List.of("out"))
                .output("out", TestModels.FLOAT, n)
                .bytes());
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(x, n));
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories(LIBRARY, List.of(factory), false);
            List<EpDevice> devices = env.epDevices().stream().filter(d -> d.epName().equals(EP)).toList();
            try (Session s = env.createSession(file, new SessionOptions().appendExecutionProvider(devices, Map.of())
                    .config(SessionOptions.MIGRATE_ON_EP_REMOVAL, "1"))) {
                assertArrayEquals(expected, s.run(feeds).get("out").floats());
                ValueView weight = ((InferenceSession) s).compiledModel().graph().value("b").orElseThrow();
                assertEquals(Optional.of(file.toAbsolutePath()), weight.externalData().map(ExternalDataInfo::file),
                        "once compiled, the weight is left in the file");
                env.unregisterLibrary(LIBRARY, Duration.ofSeconds(30));
                assertEquals(List.of(RuntimeEnvironment.CPU_EP), assignedEps(s));
                // the CPU EP compiled the Add with the weight read again from its range of the file
                assertArrayEquals(expected, s.run(feeds).get("out").floats());
            }
        }
    }

    @Test
    void withdrawingMovesTheSessionAtOnceRatherThanAtTheDrainLimit() throws Exception {
        try (RuntimeEnvironment env = newEnvironment();
             Session other = env.createSession(TestModels.addMulAdd().bytes(), new SessionOptions())) {
            env.registerFactories(LIBRARY, List.of(factory), false);
            try (Session migrating = open(env, "1"); Runners runners = new Runners(migrating)) {
                runners.awaitRuns(20);
                long start = System.nanoTime();
                env.withdrawLibrary(LIBRARY, Duration.ofSeconds(30), true);
                long took = System.nanoTime() - start;
                runners.awaitRuns(50);
                runners.close();
                assertEquals(List.of(), runners.failures);
                assertTrue(took < TimeUnit.SECONDS.toNanos(5), "the withdrawal took " + took / 1_000_000 + " ms");
                assertEquals(List.of(RuntimeEnvironment.CPU_EP), migrating.executionProviders());
                assertEquals(factory.created.get(), factory.released.get());
            }
            checkRun(other);
            assertTrue(env.libraries().stream().noneMatch(l -> l.startsWith(LIBRARY)), env.libraries().toString());
        }
    }

    @Test
    void withoutTheOptionTheRemovalStillWaitsForTheSession() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories(LIBRARY, List.of(factory), false);
            try (Session s = open(env, "0")) {
                long start = System.nanoTime();
                EpInUseException e = assertThrows(EpInUseException.class,
                        () -> env.unregisterLibrary(LIBRARY, Duration.ofMillis(300)));
                assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(300));
                assertTrue(e.getMessage().contains(s.id()), e.getMessage());
                assertEquals(List.of(EP, RuntimeEnvironment.CPU_EP), s.executionProviders());
                checkRun(s);
                env.withdrawLibrary(LIBRARY, Duration.ofMillis(100), true);
                assertThrows(EpUnavailableException.class, () -> checkRun(s));
            }
        }
    }

    @Test
    void unregisteringAtOnceStillFailsWhileAMigratingSessionHoldsTheLibrary() {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories(LIBRARY, List.of(factory), false);
            try (Session s = open(env, "1")) {
                assertThrows(EpInUseException.class, () -> env.unregisterLibrary(LIBRARY));
                assertEquals(List.of(EP, RuntimeEnvironment.CPU_EP), s.executionProviders());
                checkRun(s);
            }
            env.unregisterLibrary(LIBRARY);
        }
    }

    @Test
    void aRemovalThatBeginsWhileTheSessionIsCreatedMovesItOnceCreated() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            Thread[] remover = new Thread[1];
            long[] took = new long[1];
            // the removal begins while the fake EP is asked for its nodes: after the session's leases were taken,
            // before the session exists, so the removal's own pass over the holders cannot move it
            CountingEpFactory removedDuringCreation = new CountingEpFactory(EP, () -> new FakeEp(EP, (g, sup) -> {
                remover[0] = new Thread(() -> {
                    long start = System.nanoTime();
                    env.unregisterLibrary(LIBRARY, Duration.ofSeconds(30));
                    took[0] = System.nanoTime() - start;
                });
                remover[0].start();
                awaitTrue(() -> env.epDevices().stream().noneMatch(d -> d.epName().equals(EP)));
                g.nodes().stream().filter(n -> n.opType().equals("Add")).forEach(sup::addSingleNode);
            }));
            env.registerFactories(LIBRARY, List.of(removedDuringCreation), false);
            try (Session s = open(env, "1")) {
                assertEquals(List.of(RuntimeEnvironment.CPU_EP), s.executionProviders());
                remover[0].join(10_000);
                assertTrue(took[0] > 0 && took[0] < TimeUnit.SECONDS.toNanos(5), "took " + took[0] / 1_000_000 + " ms");
                checkRun(s);
                assertEquals(1, removedDuringCreation.released.get());
            }
        }
    }
}
