package io.ortex.shell;

import io.ortex.shell.internal.CompileCommand;
import io.ortex.shell.internal.DemoCommand;
import io.ortex.shell.internal.DeviceCommands;
import io.ortex.api.Names;
import io.ortex.shell.internal.Failures;
import io.ortex.shell.internal.InspectCommand;
import io.ortex.shell.internal.Options;
import io.ortex.shell.internal.RunCommand;
import io.ortex.shell.internal.TestCommand;
import io.ortex.shell.internal.Usage;
import io.ortex.shell.internal.UsageException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code ortex} command line. Exit status 0 on success, 1 when the job failed, 2 for bad usage or bad input; an
 * error is one line on standard error starting with {@code ortex: }, and {@code --verbose} adds the stack trace.
 */
public final class Main {
    static final String USAGE = String.join(System.lineSeparator(),
            "usage: ortex VERB [options]",
            "  shell (or no verb)           the OSGi framework with the Gogo shell (ortex:* commands)",
            "  demo                         the end-to-end tour on all-MiniLM-L6-v2",
            "  devices [--json]             hardware devices",
            "  eps [--json] [--verbose]     EP devices with vendor, type, version and state; --verbose adds the",
            "                            devices each EP does not offer, with its factory's reasons",
            "  run MODEL [--input NAME=FILE.pb]... [--inputs DIR] [--shape NAME=AxB]... [--output-dir DIR]",
            "            [--random-inputs] [--repeat N] [--warmup N] [--threads N] [--seed N] [--profile FILE]",
            "            [--json] [EP options]",
            "  test PATH... [--rtol R] [--atol A] [--report FILE] [--threads N] [EP options]",
            "  compile MODEL -o OUT [--embed] [--flags error-if-no-nodes-compiled,error-if-output-exists]",
            "            [EP options]    writes a compiled (EPContext) model",
            "  compile MODEL... -o DIR --share [--embed] [EP options]",
            "                            compiles a group into DIR/<model>_ctx.onnx and one shared context binary",
            "  inspect MODEL [--json] [--env KEY=VALUE]... [--register NAME=JAR]...",
            "                            opsets, inputs, outputs, nodes, EPContext nodes, binaries, compatibility",
            "EP options: [--policy P | --ep NAME...] [--config KEY=VALUE]... [--env KEY=VALUE]...",
            "            [--register NAME=JAR]...  (devices and eps take --env and --register too)",
            "policies: DEFAULT PREFER_CPU PREFER_NPU PREFER_GPU MAX_PERFORMANCE MAX_EFFICIENCY MIN_OVERALL_POWER",
            "every verb takes --verbose (stack traces on errors) and --help (its usage); ortex help VERB too");

    private Main() {
    }

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command line.
     *
     * @param args the arguments
     * @param out standard output
     * @param err standard error
     * @return the exit status
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        List<String> list = new ArrayList<>(List.of(args));
        return Failures.guard(list.contains("--verbose"), err, () -> dispatch(list, out));
    }

    private static int dispatch(List<String> list, PrintStream out) {
        if (list.size() >= 2 && list.get(0).equals("help")) {
            return help(list.get(1), out);
        }
        if (list.isEmpty() || list.get(0).equals("help") || list.get(0).equals("--help")) {
            out.println(USAGE);
            return list.isEmpty() ? 2 : 0;
        }
        String verb = list.remove(0);
        if (list.contains("--help") || list.contains("-h")) {
            return help(verb, out);
        }
        switch (verb) {
            case "run":
                return RunCommand.run(Options.parse(list, RunCommand.FLAGS, RunCommand.VALUED), out);
            case "test":
                return TestCommand.run(Options.parse(list, TestCommand.FLAGS, TestCommand.VALUED), out);
            case "compile":
                return CompileCommand.run(Options.parse(list, CompileCommand.FLAGS, CompileCommand.VALUED), out);
            case "devices":
                return DeviceCommands.devices(parseNoArgs(list), out);
            case "eps":
                return DeviceCommands.eps(parseNoArgs(list), out);
            case "inspect":
                return InspectCommand.run(Options.parse(list, InspectCommand.FLAGS, InspectCommand.VALUED), out);
            case "demo":
                return DemoCommand.run(Options.parse(list, DemoCommand.FLAGS, DemoCommand.VALUED), out);
            default:
                throw new UsageException("unknown verb " + Names.quote(verb) + "; try: ortex help");
        }
    }

    /** Prints one verb's usage. */
    private static int help(String verb, PrintStream out) {
        if (!Usage.known(verb)) {
            throw new UsageException("unknown verb " + Names.quote(verb) + "; try: ortex help");
        }
        out.println(Usage.of(verb));
        return 0;
    }

    private static Options parseNoArgs(List<String> list) {
        Options o = Options.parse(list, DeviceCommands.FLAGS, DeviceCommands.VALUED);
        if (!o.positional().isEmpty()) {
            throw new UsageException("unexpected argument '" + o.positional().get(0) + "'");
        }
        return o;
    }
}
