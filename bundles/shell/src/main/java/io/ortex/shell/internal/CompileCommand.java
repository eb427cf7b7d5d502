package io.ortex.shell.internal;

import io.ortex.api.CompileFlag;
import io.ortex.api.CompileResult;
import io.ortex.api.Environment;
import io.ortex.api.ModelCompiler;
import io.ortex.api.SessionOptions;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ortex compile MODEL -o OUT [--embed] [--flags error-if-no-nodes-compiled,error-if-output-exists] [EP
 * options]}: the compile API on the command line ({@code --share} compiles a group: {@link GroupCompile}). Reports
 * the EPContext nodes written per EP and the files; when stderr is an interactive terminal ({@link System#console()}
 * is not null), shows the compile progress (partitions compiled of all) as a bar there, and nothing otherwise.
 */
public final class CompileCommand {
    /** The flags of this verb. */
    public static final Set<String> FLAGS = Set.of("--embed", "--verbose", "--share");
    /** The valued options of this verb. */
    public static final Set<String> VALUED = RunCommand.union(SessionSettings.VALUED, Set.of("-o", "--output",
            "--flags"));

    private CompileCommand() {
    }

    /**
     * Runs the verb.
     *
     * @param o the parsed options
     * @param out where the report goes
     * @return the exit status
     */
    public static int run(Options o, PrintStream out) {
        if (o.has("--share")) {
            return GroupCompile.run(o, out);
        }
        if (o.positional().size() != 1) {
            throw new UsageException("compile needs exactly one MODEL, got " + o.positional().size()
                    + " (a group of models sharing their EP contexts: compile MODEL... -o DIR --share)");
        }
        String output = output(o, "compile needs the output model: -o OUT");
        Path model = Path.of(o.positional().get(0));
        Set<CompileFlag> flags = flags(o.get("--flags", ""));
        try (Environment env = SessionSettings.environment(o)) {
            ModelCompiler compiler = env.modelCompiler(SessionSettings.sessionOptions(o, env))
                    .inputModel(model).embedMode(o.has("--embed")).flags(flags);
            // a progress bar only for a person watching: stderr of an interactive terminal
            PrintStream bar = System.console() != null ? System.err : null;
            if (bar != null) {
                compiler.progressListener((done, total) -> {
                    bar.print("\r" + progressBar(done, total, BAR_WIDTH));
                    bar.flush();
                });
            }
            long t0 = System.nanoTime();
            CompileResult r;
            try {
                r = compiler.compileToFile(Path.of(output));
            } finally {
                if (bar != null) {
                    bar.println();
                }
            }
            double ms = (System.nanoTime() - t0) / 1e6;
            Table.line(out, "compiled %s -> %s in %.1f ms", model, output, ms);
            if (r.epContextNodes().isEmpty()) {
                out.println("  no EP compiled a node: the model was written with its nodes as they were");
            }
            for (Map.Entry<String, Integer> e : r.epContextNodes().entrySet()) {
                Table.line(out, "  %s: %d EPContext node%s", e.getKey(), e.getValue(), e.getValue() == 1 ? "" : "s");
            }
            r.files().forEach(f -> Table.line(out, "  wrote %s", f));
            Map<String, String> config = o.keyValues("--config");
            if ("1".equals(config.get(SessionOptions.EP_SHARE_EP_CONTEXTS))
                    && !"1".equals(config.get(SessionOptions.EP_STOP_SHARE_EP_CONTEXTS))) {
                out.println("  the sharing group stays open: its shared context binary is written by the compile that"
                        + " sets " + SessionOptions.EP_STOP_SHARE_EP_CONTEXTS + "=1, or when the runtime closes");
            }
        }
        return 0;
    }

    /**
     * Gets the output, given once with {@code -o} or {@code --output}.
     *
     * @param o the parsed options
     * @param missing the message when it is missing
     * @return the output
     */
    static String output(Options o, String missing) {
        if (o.has("-o") && o.has("--output")) {
            throw new UsageException("give the output once, with -o or --output");
        }
        String output = o.get("-o", o.get("--output", null));
        if (output == null) {
            throw new UsageException(missing);
        }
        return output;
    }

    /** The number of cells of the progress bar. */
    static final int BAR_WIDTH = 30;

    /**
     * Renders the compile progress as a bar: {@code [#########.....] 3/5 partitions}.
     *
     * @param done partitions compiled so far
     * @param total partitions in all
     * @param width the number of cells
     * @return the line, without a line end
     */
    static String progressBar(int done, int total, int width) {
        int filled = total <= 0 ? width : (int) ((long) Math.min(done, total) * width / total);
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "] " + done + "/" + total + " partitions";
    }

    /**
     * Parses {@code --flags}: a comma-separated list of {@code error-if-no-nodes-compiled} and
     * {@code error-if-output-exists}.
     *
     * @param text the list, possibly empty
     * @return the flags
     */
    static Set<CompileFlag> flags(String text) {
        Set<CompileFlag> flags = EnumSet.noneOf(CompileFlag.class);
        for (String part : text.split(",")) {
            String f = part.trim().toLowerCase(Locale.ROOT);
            if (f.isEmpty()) {
                continue;
            }
            switch (f) {
                case "error-if-no-nodes-compiled" -> flags.add(CompileFlag.ERROR_IF_NO_NODES_COMPILED);
                case "error-if-output-exists" -> flags.add(CompileFlag.ERROR_IF_OUTPUT_FILE_EXISTS);
                default -> throw new UsageException("--flags " + part + ": unknown flag; use"
                        + " error-if-no-nodes-compiled and/or error-if-output-exists");
            }
        }
        return flags;
    }
}
