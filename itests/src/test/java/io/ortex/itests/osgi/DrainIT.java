package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;

/**
 * Stopping an EP bundle while a session holds its EP: the devices disappear at once, the stop blocks until the
 * session closes (past SCR's 5 s lock timeout, without breaking SCR), and at the configured drain limit the
 * configured outcome applies: the holders fail, or the stop keeps waiting.
 */
@RunWith(PaxExam.class)
public class DrainIT extends OsgiTestSupport {
    private Session openOnExample(Environment env) {
        Session s = env.createSession(TinyModel.bytes(),
                new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU));
        assertEquals(List.of(EXAMPLE_EP, CPU_EP), s.executionProviders());
        return s;
    }

    private CompletableFuture<Void> stopInBackground(Bundle b) {
        return CompletableFuture.runAsync(() -> {
            try {
                b.stop();
            } catch (BundleException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The stop blocks while the session is open, longer than SCR's lock timeout, and ends once it closes. */
    @Test
    public void stoppingAnEpBundleBlocksUntilItsSessionCloses() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE, "drain.limit.seconds", 60);
        Environment env = environment();
        await(10_000, "the virtual NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        List<String> removed = new CopyOnWriteArrayList<>();
        env.addEpDeviceListener(new EpDeviceListener() {
            @Override
            public void added(String library, List<EpDevice> devices) {
            }

            @Override
            public void removed(String library, List<EpDevice> devices) {
                removed.add(library);
            }
        });
        Bundle example = installed(EXAMPLE_BUNDLE);
        Session session = openOnExample(env);
        CompletableFuture<Void> stop;
        try {
            runAndCheck(session, 1);
            stop = stopInBackground(example);
            await(5_000, "the devices are withdrawn", () -> devicesOf(env, EXAMPLE_EP).isEmpty());
            assertEquals(List.of(EXAMPLE_BUNDLE), removed);
            Thread.sleep(6_000);
            assertFalse("the stop waits for the session", stop.isDone());
            assertEquals(Bundle.STOPPING, example.getState());
            runAndCheck(session, 2);
            try (Session cpu = env.createSession(TinyModel.bytes(), new SessionOptions())) {
                assertEquals("new sessions do not see the EP", List.of(CPU_EP), cpu.executionProviders());
                runAndCheck(cpu, 3);
            }
            try (Session npu = env.createSession(TinyModel.bytes(),
                    new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
                assertEquals(List.of(CPU_EP), npu.executionProviders());
            }
        } finally {
            session.close();
        }
        stop.get(10, TimeUnit.SECONDS);
        assertEquals(Bundle.RESOLVED, example.getState());
        assertTrue(devicesOf(env, EXAMPLE_EP).isEmpty());
        example.start();
        await(10_000, "the restarted bundle offers its NPU again", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        try (Session again = openOnExample(env)) {
            runAndCheck(again, 4);
        }
    }

    /** Outcome "fail": at the limit the stop completes and the session's next run throws, naming the EP. */
    @Test
    public void failOutcomeFailsTheHoldersAtTheLimit() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE, "drain.limit.seconds", "1", "drain.outcome", "fail");
        Environment env = environment();
        await(10_000, "the virtual NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        Bundle example = installed(EXAMPLE_BUNDLE);
        try (Session session = openOnExample(env)) {
            runAndCheck(session, 1);
            long start = System.nanoTime();
            stopInBackground(example).get(10, TimeUnit.SECONDS);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue("the stop waited for the limit: " + ms + " ms", ms >= 900);
            assertEquals(Bundle.RESOLVED, example.getState());
            try {
                runAndCheck(session, 2);
                fail("a failed session must not run");
            } catch (EpUnavailableException e) {
                assertTrue(e.getMessage(), e.getMessage().contains(EXAMPLE_EP));
            }
        }
        try (Session cpu = env.createSession(TinyModel.bytes(), new SessionOptions())) {
            runAndCheck(cpu, 3);
        }
    }

    /** Outcome "wait": the stop keeps waiting past the limit and completes when the session closes. */
    @Test
    public void waitOutcomeKeepsWaitingPastTheLimit() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE, "drain.limit.seconds", 1L, "drain.outcome", "wait");
        Environment env = environment();
        await(10_000, "the virtual NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        Bundle example = installed(EXAMPLE_BUNDLE);
        Session session = openOnExample(env);
        CompletableFuture<Void> stop;
        try {
            stop = stopInBackground(example);
            Thread.sleep(3_000);
            assertFalse("the stop still waits, three limits later", stop.isDone());
            runAndCheck(session, 1);
        } finally {
            session.close();
        }
        stop.get(10, TimeUnit.SECONDS);
        assertEquals(Bundle.RESOLVED, example.getState());
    }
}
