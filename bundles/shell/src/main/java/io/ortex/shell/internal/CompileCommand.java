package io.ortex.shell.internal;

import io.ortex.api.CompileFlag;
import io.ortex.api.CompileResult;
import io.ortex.api.Environment;
import io.ortex.api.ModelCompiler;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ortex compile MODEL -o OUT [--embed] [--flags error-if-no-nodes-compiled,error-if-output-exists] [EP
 * options]}: the compile API on the command line. Reports the EPContext nodes written per EP and the files; when
 * stderr is an interactive terminal ({@link System#console()} is not null), shows the compile progress (partitions
 * compiled of all) as a bar there, and nothing otherwise.
 */
public final class CompileCommand {
    /** The flags of this verb. */
    public static final Set<String> FLAGS = Set.of("--embed", "--verbose");
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
        if (o.positional().size() != 1) {
            throw new UsageException("compile needs exactly one MODEL, got " + o.positional().size());
        }
        if (o.has("-o") && o.has("--output")) {
            throw new UsageException("give the output once, with -o or --output");
        }
        String output = o.get("-o", o.get("--output", null));
        if (output == null) {
            throw new UsageException("compile needs the output model: -o OUT");
        }
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
            out.printf(Locale.ROOT, "compiled %s -> %s in %.1f ms%n", model, output, ms);
            if (r.epContextNodes().isEmpty()) {
                out.println("  no EP compiled a node: the model was written with its nodes as they were");
            }
            for (Map.Entry<String, Integer> e : r.epContextNodes().entrySet()) {
                out.println("  " + e.getKey() + ": " + e.getValue() + " EPContext node"
                        + (e.getValue() == 1 ? "" : "s"));
            }
            r.files().forEach(f -> out.println("  wrote " + f));
        }
        return 0;
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
