package io.ortex.shell.internal;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.onnx.TensorComparison;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code ortex test PATH...}: runs ONNX backend test cases (a folder with {@code model.onnx} and
 * {@code test_data_set_N/}) and compares the outputs with the expected ones, one line per case, then
 * {@code N passed, N failed}.
 */
public final class TestCommand {
    /** Default relative tolerance. */
    public static final double DEFAULT_RTOL = 1e-3;
    /** Default absolute tolerance. */
    public static final double DEFAULT_ATOL = 1e-5;
    /** How much wider the tolerances are for float16 and bfloat16 outputs. */
    public static final double HALF_PRECISION_FACTOR = 10;

    /** The flags of this verb. */
    public static final Set<String> FLAGS = Set.of("--verbose");
    /** The valued options of this verb. */
    public static final Set<String> VALUED = RunCommand.union(SessionSettings.VALUED,
            Set.of("--rtol", "--atol", "--report"));

    /** The outcome of one case. */
    public enum Outcome { PASS, FAIL, ERROR }

    /**
     * The result of one case.
     *
     * @param name the case folder's name
     * @param outcome pass, fail or error
     * @param detail why it failed, or empty
     * @param errorKind what ended an {@code ERROR} case: the {@link io.ortex.api.ErrorCode} name of an Ortex
     *     exception (e.g. {@code NOT_IMPLEMENTED}, kept when the CPU EP re-wraps an exception with the node's name),
     *     otherwise the exception's simple class name; empty for other outcomes
     */
    public record CaseResult(String name, Outcome outcome, String detail, String errorKind) {
        /**
         * Makes a result with no error kind.
         *
         * @param name the case folder's name
         * @param outcome pass, fail or error
         * @param detail why it failed, or empty
         */
        public CaseResult(String name, Outcome outcome, String detail) {
            this(name, outcome, detail, "");
        }

        /**
         * Formats the result as one line of the report.
         *
         * @return the line
         */
        public String line() {
            return Names.oneLine(outcome + " " + name + (detail.isEmpty() ? "" : ": " + detail));
        }
    }

    private TestCommand() {
    }

    /**
     * Runs the verb.
     *
     * @param o the parsed options
     * @param out where the report goes
     * @return 0 when every case passed, 1 otherwise
     */
    public static int run(Options o, PrintStream out) {
        if (o.positional().isEmpty()) {
            throw new UsageException("test needs at least one PATH");
        }
        List<Path> cases = new ArrayList<>();
        for (String p : o.positional()) {
            cases.addAll(findCases(Path.of(p)));
        }
        double rtol = o.getDouble("--rtol", DEFAULT_RTOL);
        double atol = o.getDouble("--atol", DEFAULT_ATOL);
        List<CaseResult> results;
        try (Environment env = SessionSettings.environment(o)) {
            results = runCases(env, cases, SessionSettings.sessionOptions(o, env), rtol, atol,
                    r -> out.println(r.line()));
        }
        long failed = results.stream().filter(r -> r.outcome() != Outcome.PASS).count();
        String summary = (results.size() - failed) + " passed, " + failed + " failed";
        out.println(summary);
        if (o.has("--report")) {
            Path report = Path.of(o.get("--report", ""));
            String text;
            if (report.getFileName().toString().endsWith(".md")) {
                text = ConformanceReport.forPaths(o.positional().stream().map(Path::of).toList()).markdown(results);
            } else {
                List<String> lines = new ArrayList<>();
                results.forEach(r -> lines.add(r.line()));
                lines.add(summary);
                text = String.join("\n", lines) + "\n";
            }
            io.ortex.onnx.ModelWriter.writeAtomically(report,
                    os -> os.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        return failed == 0 ? 0 : 1;
    }

    /**
     * Finds the case folders under a path: the path itself when it holds {@code model.onnx}, otherwise its
     * sub-folders that do, sorted by name.
     *
     * @param path a case folder or a folder of case folders
     * @return the case folders
     */
    public static List<Path> findCases(Path path) {
        if (Files.isRegularFile(path.resolve("model.onnx"))) {
            return List.of(path);
        }
        if (!Files.isDirectory(path)) {
            throw new UsageException("test path " + path + " is not a folder");
        }
        try (Stream<Path> s = Files.list(path)) {
            List<Path> cases = s.filter(p -> Files.isRegularFile(p.resolve("model.onnx"))).sorted().toList();
            if (cases.isEmpty()) {
                throw new UsageException("test path " + path + " holds no test case (no model.onnx)");
            }
            return cases;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Receives each case's result as soon as it is known. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Called after each case.
         *
         * @param result the case's result
         */
        void done(CaseResult result);
    }

    /**
     * Runs cases.
     *
     * @param env the environment
     * @param cases the case folders
     * @param options the session options
     * @param rtol relative tolerance
     * @param atol absolute tolerance
     * @param listener told of each result
     * @return the results, in order
     */
    public static List<CaseResult> runCases(Environment env, List<Path> cases, SessionOptions options, double rtol,
                                            double atol, Listener listener) {
        List<CaseResult> results = new ArrayList<>();
        for (Path c : cases) {
            CaseResult r = runCase(env, c, options, rtol, atol);
            results.add(r);
            listener.done(r);
        }
        return results;
    }

    static CaseResult runCase(Environment env, Path dir, SessionOptions options, double rtol, double atol) {
        String name = dir.getFileName().toString();
        try (Session session = env.createSession(dir.resolve("model.onnx"), options)) {
            List<Path> sets = dataSets(dir);
            if (sets.isEmpty()) {
                return new CaseResult(name, Outcome.ERROR, "no test_data_set_N folder, nothing to compare");
            }
            for (Path set : sets) {
                Map<String, Tensor> inputs = new LinkedHashMap<>();
                List<TensorInfo> declared = session.inputs();
                for (int i = 0; i < declared.size(); i++) {
                    Path f = set.resolve("input_" + i + ".pb");
                    if (Files.exists(f)) {
                        inputs.put(declared.get(i).name(), TensorFiles.read(f));
                    }
                }
                Map<String, Tensor> actual = session.run(inputs);
                int i = 0;
                for (Map.Entry<String, Tensor> e : actual.entrySet()) {
                    Path f = set.resolve("output_" + i++ + ".pb");
                    if (!Files.exists(f)) {
                        continue;
                    }
                    Tensor expected = TensorFiles.read(f);
                    boolean half = expected.type() == ElementType.FLOAT16 || expected.type() == ElementType.BFLOAT16;
                    double factor = half ? HALF_PRECISION_FACTOR : 1;
                    String diff = TensorComparison.difference(expected, e.getValue(), rtol * factor, atol * factor);
                    if (diff != null) {
                        return new CaseResult(name, Outcome.FAIL, "output " + Names.quote(e.getKey()) + ": " + diff);
                    }
                }
            }
            return new CaseResult(name, Outcome.PASS, "");
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage();
            return new CaseResult(name, Outcome.ERROR, msg.replace('\n', ' '), errorKind(e));
        }
    }

    /**
     * Names what ended a case: {@code NOT_IMPLEMENTED} when any exception in the cause chain is an unimplemented
     * feature (a wrapper such as a tensor-file error keeps it as its cause), else the error code of an Ortex
     * exception, else the exception's simple class name.
     */
    static String errorKind(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof io.ortex.api.OrtexException oe && oe.code() == io.ortex.api.ErrorCode.NOT_IMPLEMENTED) {
                return oe.code().name();
            }
        }
        return e instanceof io.ortex.api.OrtexException oe ? oe.code().name() : e.getClass().getSimpleName();
    }

    private static List<Path> dataSets(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("test_data_set_") && Files.isDirectory(p))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
