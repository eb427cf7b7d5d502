package io.ortex.shell.osgi;

import io.ortex.api.Environment;
import io.ortex.shell.Main;
import io.ortex.shell.internal.Failures;
import io.ortex.shell.internal.SessionSettings;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** Runs the command line's verbs and the shell's own commands with the framework's environment. */
final class Verbs {
    private Verbs() {
    }

    /**
     * Runs one verb of the command line with a shared environment.
     *
     * @param env the Environment service
     * @param args the verb and its arguments
     * @param out standard output
     * @param err standard error
     * @return the exit status
     */
    static int run(Environment env, List<String> args, PrintStream out, PrintStream err) {
        return Failures.guard(args.contains("--verbose"), err,
                () -> SessionSettings.withEnvironment(env, () -> Main.run(args.toArray(new String[0]), out, err)));
    }

    /**
     * Runs one verb in a Gogo command, printing to the command's streams.
     *
     * @param env the Environment service
     * @param verb the verb
     * @param args its arguments
     */
    static void shell(Environment env, String verb, String... args) {
        List<String> all = new ArrayList<>();
        all.add(verb);
        all.addAll(List.of(args));
        run(env, all, System.out, System.err);
    }

    /**
     * Runs a shell-only command, printing its failure as one {@code ortex: } line.
     *
     * @param env the Environment service, shared with the command
     * @param verbose whether to print stack traces
     * @param command the command
     */
    static void guard(Environment env, boolean verbose, Callable<Integer> command) {
        Failures.guard(verbose, System.err, () -> SessionSettings.withEnvironment(env, command));
    }
}
