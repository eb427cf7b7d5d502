package io.ortex.itests.osgi;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.ortex.api.Environment;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;

/**
 * Resource limits set through ConfigAdmin (PID {@code io.ortex.runtime}) apply to the sessions created from then on,
 * without restarting the runtime, and a session's own entry overrides them.
 */
@RunWith(PaxExam.class)
public class LimitsIT extends OsgiTestSupport {
    @Override
    protected boolean withExampleBundle() {
        return false;
    }

    @Test
    public void aLimitFromConfigAdminAppliesToNewSessions() throws Exception {
        Environment env = environment();
        configure("ortex.limits.graph_nodes", "2");
        await(10_000, "the limit applies", () -> {
            try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions())) {
                return false;
            } catch (InvalidModelException e) {
                assertTrue(e.getMessage(), e.getMessage().contains("ortex.limits.graph_nodes"));
                return true;
            }
        });
        try (Session s = env.createSession(TinyModel.bytes(),
                new SessionOptions().config("ortex.limits.graph_nodes", "3"))) {
            runAndCheck(s, 1);
        }
        configure("ortex.limits.graph_nodes", "0");
        await(10_000, "the default applies again", () -> {
            try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions())) {
                runAndCheck(s, 2);
                return true;
            } catch (InvalidModelException e) {
                return false;
            }
        });
    }

    @Test
    public void aMalformedLimitIsRefusedAndThePreviousSettingsStay() throws Exception {
        Environment env = environment();
        configure("ortex.limits.graph_nodes", "many");
        Thread.sleep(500);
        try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions())) {
            runAndCheck(s, 3);
        } catch (RuntimeException e) {
            fail("a malformed configuration changed the limits: " + e);
        }
    }
}
