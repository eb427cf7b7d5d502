package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;

/**
 * Session migration in a real framework: stopping the example EP bundle while a session that set
 * {@code ortex.session.migrate_on_ep_removal=1} holds its EP completes at once, far below the drain limit, and the
 * session, run by two threads all along, keeps running on the CPU EP without an error.
 */
@RunWith(PaxExam.class)
public class MigrationIT extends OsgiTestSupport {
    /** The stop returns well before the 60 s drain limit; a migration takes milliseconds. */
    @Test
    public void stoppingTheEpBundleMovesAMigratingSessionOntoTheCpuEp() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE, "drain.limit.seconds", 60L, "drain.outcome", "fail");
        Environment env = environment();
        await(10_000, "the virtual NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        Bundle example = installed(EXAMPLE_BUNDLE);
        SessionOptions options = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU)
                .config(SessionOptions.MIGRATE_ON_EP_REMOVAL, "1");
        try (Session session = env.createSession(TinyModel.bytes(), options)) {
            assertEquals(List.of(EXAMPLE_EP, CPU_EP), session.executionProviders());
            AtomicBoolean stopRunning = new AtomicBoolean();
            AtomicInteger runs = new AtomicInteger();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            List<Thread> runners = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int seed = i;
                Thread t = new Thread(() -> {
                    while (!stopRunning.get()) {
                        try {
                            runAndCheck(session, seed + runs.incrementAndGet());
                        } catch (Throwable e) {
                            failures.add(e);
                            return;
                        }
                    }
                }, "runner-" + i);
                t.start();
                runners.add(t);
            }
            try {
                await(10_000, "the runners are running", () -> runs.get() > 20 || !failures.isEmpty());
                long start = System.nanoTime();
                example.stop();
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue("the stop took " + ms + " ms", ms < 5_000);
                assertEquals(Bundle.RESOLVED, example.getState());
                assertTrue(devicesOf(env, EXAMPLE_EP).isEmpty());
                int after = runs.get();
                await(10_000, "the runners go on", () -> runs.get() > after + 20 || !failures.isEmpty());
            } finally {
                stopRunning.set(true);
                for (Thread t : runners) {
                    t.join(10_000);
                }
            }
            assertEquals(List.of(), failures);
            assertEquals(List.of(CPU_EP), session.executionProviders());
            assertTrue(session.assignment().stream().map(NodeAssignment::ep).allMatch(CPU_EP::equals));
            runAndCheck(session, 99);
        }
        example.start();
        await(10_000, "the restarted bundle offers its NPU again", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
    }
}
