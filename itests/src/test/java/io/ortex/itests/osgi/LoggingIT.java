package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;

/**
 * The runtime's log in a real Felix, routed as the distribution routes it: the bundles call SLF4J, whose packages
 * the system bundle exports from the class path, and the provider there (slf4j-jdk14) hands the records to
 * java.util.logging, where this test reads them. An EP bundle arriving and a drain finishing each give one INFO
 * line on their component's logger.
 */
@RunWith(PaxExam.class)
public class LoggingIT extends OsgiTestSupport {
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger ortex = Logger.getLogger("io.ortex");

    @Override
    protected boolean withExampleBundle() {
        return false;
    }

    /** Reads every record of the Ortex loggers from INFO up. */
    @Before
    public void capture() {
        capture.setLevel(Level.INFO);
        ortex.addHandler(capture);
    }

    /** Stops reading. */
    @After
    public void release() {
        ortex.removeHandler(capture);
    }

    /** Installing the example EP bundle logs its arrival; stopping it while a session holds it logs the drain. */
    @Test
    public void anEpArrivingAndADrainFinishingAreLoggedAtInfo() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE, "drain.limit.seconds", 60);
        Environment env = environment();
        Bundle example = context.installBundle(exampleJar());
        example.start();
        await(10_000, "the virtual NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        await(5_000, "the arrival is logged", () -> !lines("io.ortex.runtime.registry",
                "EP library '" + EXAMPLE_BUNDLE + "' arrived").isEmpty());
        String arrival = lines("io.ortex.runtime.registry", "EP library '" + EXAMPLE_BUNDLE + "' arrived").get(0);
        // the EP with its version, and the device it offers: at arrival, or once the grant above reaches the
        // runtime when ConfigAdmin delivers it after the bundle arrived
        assertTrue(arrival, arrival.matches(".*EP " + EXAMPLE_EP + " \\d+\\.\\d+\\.\\d+.*"));
        await(5_000, "the offered NPU is logged", () -> lines("io.ortex.runtime.registry",
                "EP library '" + EXAMPLE_BUNDLE + "'").stream().anyMatch(m -> m.contains(EXAMPLE_EP + " on NPU")));

        Session session = env.createSession(TinyModel.bytes(),
                new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU));
        CompletableFuture<Void> stop;
        try {
            assertEquals(List.of(EXAMPLE_EP, CPU_EP), session.executionProviders());
            runAndCheck(session, 1);
            stop = CompletableFuture.runAsync(() -> {
                try {
                    example.stop();
                } catch (BundleException e) {
                    throw new IllegalStateException(e);
                }
            });
            await(5_000, "the drain's start is logged", () -> !lines("io.ortex.runtime.drain",
                    "draining 1 session(s)").isEmpty());
            assertFalse("the stop waits for the session", stop.isDone());
            assertTrue(lines("io.ortex.runtime.drain", "removed after").isEmpty());
        } finally {
            session.close();
        }
        stop.get(10, TimeUnit.SECONDS);
        List<String> finished = lines("io.ortex.runtime.drain", "EP library '" + EXAMPLE_BUNDLE + "' removed after");
        assertEquals(records.toString(), 1, finished.size());
        assertTrue(finished.get(0), finished.get(0).endsWith(": drained"));
    }

    /** The INFO messages of one logger that contain a text. */
    private List<String> lines(String logger, String text) {
        return records.stream()
                .filter(r -> r.getLevel() == Level.INFO && logger.equals(r.getLoggerName()))
                .map(LogRecord::getMessage)
                .filter(m -> m.contains(text))
                .toList();
    }
}
