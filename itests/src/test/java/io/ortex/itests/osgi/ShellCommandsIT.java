package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The shell bundle's Gogo commands in Felix, called through Gogo's CommandProcessor: every {@code ortex:*} function
 * is published by an immediate component; {@code ortex:policy} changes the runtime's default policy through
 * ConfigAdmin and new sessions follow it; {@code ortex:open} holds the EPs it selected until {@code ortex:close}.
 */
@RunWith(PaxExam.class)
public class ShellCommandsIT extends OsgiTestSupport {
    /**
     * The framework of the other ITs plus Gogo's basic commands, for {@code help}.
     *
     * @return the options
     */
    @Override
    @org.ops4j.pax.exam.Configuration
    public org.ops4j.pax.exam.Option[] configuration() {
        List<org.ops4j.pax.exam.Option> o = new java.util.ArrayList<>(List.of(super.configuration()));
        o.add(org.ops4j.pax.exam.CoreOptions.mavenBundle("org.apache.felix", "org.apache.felix.gogo.command",
                "1.1.2"));
        return o.toArray(new org.ops4j.pax.exam.Option[0]);
    }

    /** What one command printed, its result included. */
    private record Printed(String out, String err) {
    }

    private Printed gogo(String command) throws Exception {
        ServiceTracker<CommandProcessor, CommandProcessor> t = new ServiceTracker<>(context, CommandProcessor.class,
                null);
        t.open();
        try {
            CommandProcessor processor = t.waitForService(10_000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, err);
            try {
                Object result = session.execute(command);
                if (result != null) {
                    out.writeBytes(session.format(result, org.apache.felix.service.command.Converter.INSPECT)
                            .toString().getBytes(StandardCharsets.UTF_8));
                }
            } finally {
                session.close();
            }
            return new Printed(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            t.close();
        }
    }

    /** Each command group is an immediate component publishing its functions under scope ortex. */
    @Test
    public void everyCommandIsPublished() throws Exception {
        environment();
        Set<String> functions = new HashSet<>();
        await(10_000, "the ortex commands are registered", () -> {
            functions.clear();
            try {
                ServiceReference<?>[] refs = context.getAllServiceReferences(null, "(osgi.command.scope=ortex)");
                for (ServiceReference<?> r : refs == null ? new ServiceReference<?>[0] : refs) {
                    Object f = r.getProperty("osgi.command.function");
                    functions.addAll(f instanceof String[] a ? List.of(a) : List.of(String.valueOf(f)));
                }
            } catch (org.osgi.framework.InvalidSyntaxException e) {
                throw new IllegalStateException(e);
            }
            return functions.size() == 13;
        });
        assertEquals(Set.of("devices", "eps", "run", "test", "compile", "inspect", "demo", "open", "sessions",
                "close", "policy", "register", "unregister"), functions);
        Printed help = gogo("help ortex:eps");
        assertTrue(help.out(), help.out().contains("state (ACTIVE or DRAINING)") && help.out().contains("--json"));
    }

    /** ortex:policy writes default.policy into ConfigAdmin, keeping the other keys, and the runtime applies it. */
    @Test
    public void policyChangesTheDefaultPolicyOfNewSessions() throws Exception {
        Environment env = environment();
        configure("virtual.grants", new String[] {EXAMPLE_BUNDLE});
        await(10_000, "the grant shows the virtual NPU", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        assertEquals("none (sessions use DEFAULT)", gogo("ortex:policy").out().strip());
        assertEquals("default.policy = PREFER_NPU", gogo("ortex:policy prefer_npu").out().strip());
        assertEquals("PREFER_NPU", gogo("ortex:policy").out().strip());
        ConfigurationAdmin ca = context.getService(context.getServiceReference(ConfigurationAdmin.class));
        assertEquals("PREFER_NPU", ca.getConfiguration(PID, "?").getProperties().get("default.policy"));
        await(10_000, "new sessions use the NPU", () -> {
            try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions())) {
                return s.executionProviders().get(0).equals(EXAMPLE_EP);
            }
        });
        assertEquals("the grant stays", EXAMPLE_BUNDLE,
                ((String[]) ca.getConfiguration(PID, "?").getProperties().get("virtual.grants"))[0]);
        Printed bad = gogo("ortex:policy fastest");
        assertTrue(bad.err(), bad.err().startsWith("ortex: --policy fastest: unknown policy"));
        assertEquals(1, bad.err().strip().lines().count());
        assertEquals("default.policy = none", gogo("ortex:policy none").out().strip());
    }

    /** ortex:open holds the EPs it chose, as ortex:eps and ortex:sessions show, until ortex:close. */
    @Test
    public void anOpenSessionHoldsItsEpsUntilClosed() throws Exception {
        Environment env = environment();
        Path model = Files.createTempFile("tiny", ".onnx");
        try {
            Files.write(model, TinyModel.bytes());
            String id = gogo("ortex:open " + model + " --ep " + CPU_EP).out().strip();
            assertTrue(id, id.matches("s\\d+"));
            assertTrue(env.epLibraries().stream().anyMatch(l -> l.name().equals(CPU_BUNDLE)
                    && l.holders().contains(id)));
            String eps = gogo("ortex:eps").out();
            assertTrue(eps, eps.lines().anyMatch(l -> l.startsWith(CPU_EP) && l.endsWith(id)));
            String sessions = gogo("ortex:sessions").out();
            assertTrue(sessions, sessions.lines().anyMatch(l -> l.startsWith(id + " ") && l.contains(CPU_EP)));
            String run = gogo("ortex:run " + id + " --repeat 2").out();
            assertTrue(run, run.contains("over 2 runs"));
            assertEquals("closed " + id, gogo("ortex:close " + id).out().strip());
            assertTrue(env.epLibraries().stream().noneMatch(l -> l.holders().contains(id)));
            Printed again = gogo("ortex:close " + id);
            assertEquals("ortex: no open session '" + id + "'; open: []", again.err().strip());
        } finally {
            Files.deleteIfExists(model);
        }
    }
}
