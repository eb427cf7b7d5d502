package io.ortex.shell;

import java.io.PrintStream;
import java.util.List;

/**
 * The {@code ortex} command line as an OSGi service: the shell bundle registers one that runs the verbs with the
 * framework's {@code Environment} service, and the distribution's launcher calls it to run one verb in the
 * framework (start, run one command, stop), so that the command line and the Gogo shell share one set of bundles and
 * EPs. Implementations are thread safe.
 */
public interface CommandLine {
    /**
     * Runs one verb, such as {@code eps --json}, with the contract of {@link Main}: one {@code ortex: } line on
     * {@code err} for an error, and the exit status.
     *
     * @param args the verb and its arguments
     * @param out standard output
     * @param err standard error
     * @return 0 on success, 1 when the job failed, 2 for bad usage or bad input
     */
    int execute(List<String> args, PrintStream out, PrintStream err);
}
