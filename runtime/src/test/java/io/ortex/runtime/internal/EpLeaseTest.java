package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.EpInUseException;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.ep.cpu.CpuEpFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Unregistration of an EP library while sessions hold its EP: refused at once listing them, or drained (devices
 * hidden at once, the library released only once the last session closed, restored at the timeout).
 */
class EpLeaseTest {
    private static final String EP = "FakeEP";
    private static final float[] X = {1, 2, 3, 4, 5, 6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};

    private final List<FakeEp> eps = Collections.synchronizedList(new ArrayList<>());
    private volatile Runnable computeHook = () -> { };
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final CountingEpFactory factory = new CountingEpFactory(EP, this::newEp) {
        @Override
        public void releaseEp(ExecutionProvider ep) {
            events.add("releaseEp");
            super.releaseEp(ep);
        }
    };

    private ExecutionProvider newEp() {
        FakeEp ep = new FakeEp(EP, (g, s) -> g.nodes().stream().filter(n -> n.opType().equals("Mul"))
                .forEach(s::addSingleNode)).onCompute(() -> computeHook.run());
        eps.add(ep);
        return ep;
    }

    private RuntimeEnvironment newEnvironment() {
        return new RuntimeEnvironment(Map.of(), List.of(CPU), List.of(new CpuEpFactory(), factory));
    }

    private static List<EpDevice> fakeDevices(RuntimeEnvironment env) {
        return env.epDevices().stream().filter(d -> d.epName().equals(EP)).toList();
    }

    private static Session openOnFakeEp(RuntimeEnvironment env, List<EpDevice> devices) {
        return env.createSession(TestModels.addMulAdd().bytes(),
                new SessionOptions().appendExecutionProvider(devices, Map.of()));
    }

    private static void checkRun(Session s) {
        Map<String, Tensor> out = s.run(Map.of("x", Tensor.ofFloats(X, 2, 3), "y", Tensor.ofFloats(Y, 2, 3)));
        assertArrayEquals(TestModels.addMulAddExpected(X, Y), out.get("out").floats());
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Runs a call on a new thread and keeps what it threw. */
    private static final class Background {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread;

        Background(String name, Runnable call) {
            thread = new Thread(() -> {
                try {
                    call.run();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, name);
            thread.start();
        }

        Throwable join() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(20));
            assertFalse(thread.isAlive(), thread.getName() + " did not finish");
            return failure.get();
        }
    }

    @Test
    void unregisteringWhileASessionHoldsTheEpIsRefusedListingTheSession() {
        try (RuntimeEnvironment env = newEnvironment()) {
            List<EpDevice> devices = fakeDevices(env);
            Session s = openOnFakeEp(env, devices);
            EpInUseException e = assertThrows(EpInUseException.class, () -> env.unregisterLibrary(EP));
            assertEquals(EP, e.library());
            assertEquals(List.of(s.id() + " (bytes)"), e.sessions());
            assertTrue(e.getMessage().contains(s.id()) && e.getMessage().contains(EP), e.getMessage());
            assertEquals(devices, fakeDevices(env), "the devices stay");
            assertEquals(0, factory.released.get());
            checkRun(s);
            try (Session another = openOnFakeEp(env, devices)) {
                checkRun(another);
            }
            s.close();
            env.unregisterLibrary(EP);
            assertEquals(List.of(), fakeDevices(env));
            assertEquals(2, factory.released.get());
            assertTrue(eps.stream().allMatch(ep -> ep.callsAfterRelease.get() == 0));
        }
    }

    @Test
    void waitingUnregistrationHidesTheDevicesAtOnceAndEndsWhenTheSessionCloses() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            Session s = openOnFakeEp(env, fakeDevices(env));
            Background unregister = new Background("unregister", () -> env.unregisterLibrary(EP,
                    Duration.ofSeconds(20)));
            await(() -> fakeDevices(env).isEmpty(), "the draining library's devices are hidden");
            assertTrue(unregister.thread.isAlive(), "the unregistration waits for the session");
            assertEquals(List.of("CPUExecutionProvider"), env.epDevices().stream().map(EpDevice::epName).toList());
            checkRun(s);
            Background closer = new Background("closer", () -> {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                s.close();
            });
            assertNull(closer.join());
            assertNull(unregister.join());
            assertEquals(List.of(), fakeDevices(env));
            assertEquals(1, factory.released.get());
            OrtexException again = assertThrows(OrtexException.class, () -> env.unregisterLibrary(EP));
            assertTrue(again.getMessage().contains(EP), again.getMessage());
        }
    }

    @Test
    void waitingUnregistrationGivesUpAtTheTimeoutAndTheDevicesComeBack() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            List<EpDevice> before = env.epDevices();
            Session s = openOnFakeEp(env, fakeDevices(env));
            AtomicReference<Long> tookMs = new AtomicReference<>();
            Background unregister = new Background("unregister", () -> {
                long t0 = System.nanoTime();
                try {
                    env.unregisterLibrary(EP, Duration.ofMillis(400));
                } finally {
                    tookMs.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                }
            });
            await(() -> fakeDevices(env).isEmpty(), "the draining library's devices are hidden");
            Throwable thrown = unregister.join();
            EpInUseException e = assertInstanceOf(EpInUseException.class, thrown);
            assertTrue(e.getMessage().contains("after waiting") && e.getMessage().contains(s.id()), e.getMessage());
            assertTrue(tookMs.get() >= 350, "gave up after " + tookMs.get() + " ms");
            assertEquals(before, env.epDevices(), "the devices are back, in their place");
            assertEquals(0, factory.released.get());
            checkRun(s);
            try (Session another = openOnFakeEp(env, fakeDevices(env))) {
                checkRun(another);
            }
            s.close();
            env.unregisterLibrary(EP);
        }
    }

    @Test
    void aSessionCannotSelectAnEpWhoseLibraryIsBeingDrained() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            List<EpDevice> devices = fakeDevices(env);
            Session s = openOnFakeEp(env, devices);
            Background unregister = new Background("unregister", () -> env.unregisterLibrary(EP,
                    Duration.ofSeconds(20)));
            await(() -> fakeDevices(env).isEmpty(), "the draining library's devices are hidden");
            EpUnavailableException e = assertThrows(EpUnavailableException.class, () -> openOnFakeEp(env, devices));
            assertEquals(ErrorCode.EP_UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains(EP), e.getMessage());
            assertEquals(1, factory.created.get(), "no EP was created for the refused session");
            try (Session cpuOnly = env.createSession(TestModels.addMulAdd().bytes(),
                    new SessionOptions().selectionPolicy(io.ortex.api.ExecutionProviderDevicePolicy.PREFER_CPU))) {
                assertEquals(List.of("CPUExecutionProvider"), cpuOnly.executionProviders());
                checkRun(cpuOnly);
            }
            s.close();
            assertNull(unregister.join());
        }
    }

    @Test
    void aDrainedLibraryIsNotReleasedWhileARunIsInFlight() throws Exception {
        CountDownLatch inKernel = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        try (RuntimeEnvironment env = newEnvironment()) {
            Session s = openOnFakeEp(env, fakeDevices(env));
            computeHook = () -> {
                inKernel.countDown();
                try {
                    assertTrue(proceed.await(20, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                events.add("compute done");
            };
            Background run = new Background("run", () -> checkRun(s));
            assertTrue(inKernel.await(10, TimeUnit.SECONDS));
            Background unregister = new Background("unregister", () -> {
                env.unregisterLibrary(EP, Duration.ofSeconds(20));
                events.add("unregistered");
            });
            await(() -> fakeDevices(env).isEmpty(), "the draining library's devices are hidden");
            Background closer = new Background("closer", () -> {
                s.close();
                events.add("closed");
            });
            Thread.sleep(300);
            assertTrue(run.thread.isAlive() && unregister.thread.isAlive() && closer.thread.isAlive());
            assertEquals(List.of(), events, "nothing is released while the run is in flight");
            assertEquals(0, factory.released.get());
            proceed.countDown();
            assertNull(run.join());
            assertNull(closer.join());
            assertNull(unregister.join());
            assertEquals(List.of("compute done", "releaseEp"), events.subList(0, 2));
            assertTrue(events.indexOf("unregistered") > events.indexOf("releaseEp"), events.toString());
            assertTrue(events.indexOf("closed") > events.indexOf("releaseEp"), events.toString());
            assertEquals(1, factory.released.get());
            assertEquals(0, eps.get(0).callsAfterRelease.get());
        }
    }

    @Test
    void aClosedSessionNoLongerCallsTheEpsItReleased() {
        try (RuntimeEnvironment env = newEnvironment()) {
            Session s = openOnFakeEp(env, fakeDevices(env));
            s.setEpDynamicOptions(Map.of("k", "v"));
            s.close();
            assertEquals(1, factory.released.get());
            assertEquals(List.of(EP, "CPUExecutionProvider"), s.executionProviders());
            assertThrows(OrtexException.class, () -> s.setEpDynamicOptions(Map.of("k", "v")));
            assertThrows(OrtexException.class, () -> checkRun(s));
            assertEquals(0, eps.get(0).callsAfterRelease.get(), "calls into the EP after its release");
        }
    }
}
