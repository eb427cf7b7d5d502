package io.ortex.shell.osgi;

import io.ortex.api.Environment;
import io.ortex.shell.internal.OpenSessions;
import io.ortex.shell.internal.Options;
import io.ortex.shell.internal.RunCommand;
import io.ortex.shell.internal.Usage;
import java.util.List;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo commands that run models: {@code ortex:run}, {@code ortex:test}, {@code ortex:compile},
 * {@code ortex:inspect}, {@code ortex:demo}, and the sessions kept open between commands, {@code ortex:open},
 * {@code ortex:sessions}, {@code ortex:close}. Options are those of the command line. Immediate, so that the open
 * sessions live as long as the component; they are closed when it deactivates.
 */
@Component(service = ModelShellCommands.class, immediate = true, property = {
    "osgi.command.scope=ortex",
    "osgi.command.function=run",
    "osgi.command.function=test",
    "osgi.command.function=compile",
    "osgi.command.function=inspect",
    "osgi.command.function=demo",
    "osgi.command.function=open",
    "osgi.command.function=sessions",
    "osgi.command.function=close"
})
public final class ModelShellCommands {
    private static final String EP_OPTIONS = Usage.SHELL_EP_OPTIONS;

    private final Environment environment;
    private final OpenSessions sessions = new OpenSessions();

    /**
     * Creates the component.
     *
     * @param environment the runtime's Environment service
     */
    @Activate
    public ModelShellCommands(@Reference Environment environment) {
        this.environment = environment;
    }

    /** Closes the sessions still open. */
    @Deactivate
    void deactivate() {
        sessions.close();
    }

    /**
     * Runs a model, or an open session given by its id.
     *
     * @param args the model or session id, and the options
     */
    @Descriptor("runs MODEL on given or seeded random inputs, or the open session ID, and reports outputs, EPs and "
            + "latency")
    public void run(@Descriptor("MODEL|ID [--input NAME=FILE.pb]... [--inputs DIR] [--shape NAME=AxB]... "
            + "[--random-inputs] [--output-dir DIR] [--repeat N] [--warmup N] [--seed N] [--profile FILE] [--json] "
            + EP_OPTIONS)
            String... args) {
        List<String> list = List.of(args);
        if (!list.isEmpty() && sessions.isOpen(list.get(0))) {
            Verbs.guard(environment, list.contains("--verbose"), () -> sessions.run(
                    Options.parse(list, RunCommand.FLAGS, RunCommand.VALUED), System.out));
        } else {
            Verbs.shell(environment, "run", args);
        }
    }

    /**
     * Runs ONNX backend test cases.
     *
     * @param args the paths and options
     */
    @Descriptor(Usage.TEST_WHAT)
    public void test(@Descriptor(Usage.TEST) String... args) {
        Verbs.shell(environment, "test", args);
    }

    /**
     * Compiles a model for the selected EPs.
     *
     * @param args the model and options
     */
    @Descriptor(Usage.COMPILE_WHAT)
    public void compile(@Descriptor(Usage.COMPILE) String... args) {
        Verbs.shell(environment, "compile", args);
    }

    /**
     * Reports what a model holds.
     *
     * @param args the model and options
     */
    @Descriptor(Usage.INSPECT_WHAT)
    public void inspect(@Descriptor(Usage.INSPECT) String... args) {
        Verbs.shell(environment, "inspect", args);
    }

    /**
     * Runs the end-to-end tour.
     *
     * @param args the options
     */
    @Descriptor(Usage.DEMO_WHAT)
    public void demo(@Descriptor("[--verbose]") String... args) {
        Verbs.shell(environment, "demo", args);
    }

    /**
     * Opens a session and keeps it open; prints its id.
     *
     * @param args the model and EP options
     */
    @Descriptor("opens a session on MODEL and keeps it, holding its EPs, until ortex:close; prints its id")
    public void open(@Descriptor("MODEL " + EP_OPTIONS) String... args) {
        List<String> list = List.of(args);
        Verbs.guard(environment, list.contains("--verbose"), () -> {
            System.out.println(sessions.open(environment,
                    Options.parse(list, OpenSessions.FLAGS, OpenSessions.VALUED)));
            return 0;
        });
    }

    /** Lists the open sessions. */
    @Descriptor("lists the open sessions: id, model, EPs, runs, age")
    public void sessions() {
        sessions.list(System.out);
    }

    /**
     * Closes an open session.
     *
     * @param id the session's id
     */
    @Descriptor("closes an open session, releasing its EPs (an EP being removed can then finish draining)")
    public void close(@Descriptor("the session id, as ortex:open printed it") String id) {
        Verbs.guard(environment, false, () -> {
            sessions.close(id);
            System.out.println("closed " + id);
            return 0;
        });
    }
}
