package io.ortex.shell.osgi;

import io.ortex.api.Environment;
import io.ortex.shell.CommandLine;
import java.io.PrintStream;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The {@link CommandLine} service: the command line's verbs run with the framework's {@link Environment} service.
 * The distribution's launcher calls it for {@code ortex VERB ...}. Thread safe.
 */
@Component(service = CommandLine.class, immediate = true)
public final class CommandLineComponent implements CommandLine {
    private final Environment environment;

    /**
     * Creates the component.
     *
     * @param environment the runtime's Environment service
     */
    @Activate
    public CommandLineComponent(@Reference Environment environment) {
        this.environment = environment;
    }

    /** {@inheritDoc} */
    @Override
    public int execute(List<String> args, PrintStream out, PrintStream err) {
        return Verbs.run(environment, List.copyOf(args), out, err);
    }
}
