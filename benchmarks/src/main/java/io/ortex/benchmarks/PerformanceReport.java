package io.ortex.benchmarks;

import ai.onnxruntime.OrtEnvironment;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.linalg.VectorSupport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDate;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.profile.CompilerProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the benchmarks that compare Ortex with ONNX Runtime in the same run and writes {@code docs/performance.md}:
 * the machine, the JDK, ONNX Runtime's version, the kernels in use, and for each benchmark the medians of both, their
 * ratio and, for matrix products, GFLOP/s (GOP/s for integer ones); then the steady-state heap allocation of an
 * all-MiniLM-L6-v2 run and the peak resident memory of a process that runs it.
 *
 * <p>Usage: {@code PerformanceReport [OUTPUT.md] [--quick]}; {@code --quick} runs short iterations to check the
 * report itself, not to publish figures.
 */
public final class PerformanceReport {
    /** The collector options the distribution's launcher gives a one-shot verb (bin/ortex). */
    static final String[] LAUNCHER_VERB_GC = {"-XX:+UseSerialGC", "-Xmn16m"};

    /** How many times each row's two sides are measured, alternating which goes first. */
    private static final int ROUNDS = 2;

    private final boolean quick;
    private final List<Row> rows = new ArrayList<>();
    private final List<Interleaved> models = new ArrayList<>();
    private final List<Interleaved> products = new ArrayList<>();

    /**
     * One benchmark's figures, Ortex beside ONNX Runtime; {@code flops} is the operations per call (0 when a rate
     * means nothing) and {@code rate} what they are called per second, GFLOP/s or GOP/s.
     */
    private record Row(String group, String what, int threads, double ortexMs, double ortMs, double flops,
                       String rate) {
    }

    /**
     * A real model or a matrix product measured by {@link InterleavedRuns}: the numbers of each line it printed, keyed
     * by the line's leading words ({@code side ortex 1}, {@code ratio 1}, {@code scaling ortex}).
     */
    private record Interleaved(String target, Map<String, double[]> figures) {
        double[] get(String key) {
            double[] f = figures.get(key);
            if (f == null) {
                throw new IllegalStateException("InterleavedRuns printed no '" + key + "' for " + target);
            }
            return f;
        }
    }

    /** The matrix sizes of the matrix-product rows. */
    private static final int[] MATRIX_SIZES = {256, 512, 1024, 2048};

    private PerformanceReport(boolean quick) {
        this.quick = quick;
    }

    /**
     * Runs the report.
     *
     * @param args the output file (default {@code docs/performance.md}) and {@code --quick}
     * @throws Exception when a benchmark or the file fails
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of("docs/performance.md");
        boolean quick = false;
        for (String a : args) {
            if (a.equals("--quick")) {
                quick = true;
            } else {
                out = Path.of(a);
            }
        }
        PerformanceReport report = new PerformanceReport(quick);
        report.run();
        String text = report.markdown(allocationPerRun(), peakRss("ortex"), peakRss("ortex", LAUNCHER_VERB_GC),
                peakRss("onnxruntime"));
        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        System.out.println("wrote " + out);
    }

    private void run() throws RunnerException, IOException, InterruptedException {
        for (String model : RealModels.NAMES) {
            models.add(interleaved(model));
        }
        for (int n : MATRIX_SIZES) {
            products.add(interleaved(InterleavedRuns.MATMUL + n));
        }
        collect("Transformer kernels (MiniLM sizes) and fixed costs", KernelBenchmark.class, Map.of(),
                TimeUnit.MICROSECONDS,
                r -> r.getParams().getParam("kernel"), r -> 0);
        collect("Integer matrix product Y = (X - 128) x W (uint8 x int8 into int32, W constant), one MatMulInteger "
                + "node", IntegerGemmBenchmark.class, "", Map.of(), TimeUnit.MILLISECONDS,
                r -> "n = " + r.getParams().getParam("n"), r -> {
                    double n = Double.parseDouble(r.getParams().getParam("n"));
                    return 2 * n * n * n;
                }, "GOP/s");
        collect("Session creation (2 threads)", SessionCreateBenchmark.class, Map.of(), TimeUnit.MILLISECONDS,
                r -> r.getParams().getParam("model"), r -> 0);
        // the ONNX Runtime EP: Ortex's side is the session with OrtExecutionProvider appended
        collect("Ortex with the ONNX Runtime EP (OrtExecutionProvider) against ONNX Runtime called directly",
                OrtEpBenchmark.class, "(ortexWithOrtEp|onnxRuntime)$", Map.of(), TimeUnit.MILLISECONDS,
                r -> r.getParams().getParam("model"), r -> 0);
    }

    /** Names a benchmark's row. */
    private interface Label {
        String of(RunResult r);
    }

    /** Gives a benchmark's floating-point operations per call, 0 when not meaningful. */
    private interface Flops {
        double of(RunResult r);
    }

    private void collect(String group, Class<?> benchmark, Map<String, String[]> params, TimeUnit unit, Label label,
                         Flops flops) throws RunnerException {
        collect(group, benchmark, "", params, unit, label, flops, "GFLOP/s");
    }

    private void collect(String group, Class<?> benchmark, String methods, Map<String, String[]> params,
                         TimeUnit unit, Label label, Flops flops) throws RunnerException {
        collect(group, benchmark, methods, params, unit, label, flops, "GFLOP/s");
    }

    /**
     * Runs the benchmark methods whose names match {@code methods} (all when empty); a method whose name starts with
     * {@code ortex} is Ortex's side of a row, any other ONNX Runtime's. The two sides of a row run back to back, in
     * {@link #ROUNDS} rounds that alternate which side goes first, and each side keeps its lower round median: the
     * machine's speed drifts over minutes (other tenants of the host), and a row whose sides ran minutes apart would
     * compare the drift as much as the runtimes.
     */
    private void collect(String group, Class<?> benchmark, String methods, Map<String, String[]> params,
                         TimeUnit unit, Label label, Flops flops, String rate) throws RunnerException {
        List<String> sides = benchmarkMethods(benchmark, methods);
        for (Map<String, String> combination : parameterCombinations(benchmark, params)) {
            double[] best = {Double.NaN, Double.NaN};
            RunResult last = null;
            int rounds = quick ? 1 : ROUNDS;
            for (int round = 0; round < rounds; round++) {
                List<String> order = new ArrayList<>(sides);
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String method : order) {
                    RunResult r = runOne(benchmark, method, combination);
                    logCompilation(method, r);
                    double median = r.getPrimaryResult().getStatistics().getPercentile(50);
                    double ms = unit == TimeUnit.MICROSECONDS ? median / 1000 : median;
                    int side = method.startsWith("ortex") ? 0 : 1;
                    best[side] = Double.isNaN(best[side]) ? ms : Math.min(best[side], ms);
                    last = r;
                }
            }
            String threads = combination.get("threads");
            rows.add(new Row(group, label.of(last), threads == null ? 2 : Integer.parseInt(threads), best[0], best[1],
                    flops.of(last), rate));
        }
    }

    /** Runs one benchmark method with one combination of parameters in a fork of its own. */
    private RunResult runOne(Class<?> benchmark, String method, Map<String, String> combination)
            throws RunnerException {
        ChainedOptionsBuilder o = new OptionsBuilder()
                .include(benchmark.getName() + "\\." + method + "$")
                .forks(1)
                .jvmArgsAppend("--add-modules", "jdk.incubator.vector", "-Xss8m")
                .addProfiler(CompilerProfiler.class)
                .shouldFailOnError(true);
        if (System.getProperty("ortex.models") != null) {
            o.jvmArgsAppend("-Dortex.models=" + System.getProperty("ortex.models"));
        }
        if (quick) {
            o.warmupIterations(1).warmupTime(TimeValue.seconds(1)).measurementIterations(2)
                    .measurementTime(TimeValue.seconds(1));
        } else {
            o.warmupIterations(5).warmupTime(TimeValue.seconds(1)).measurementIterations(4)
                    .measurementTime(TimeValue.seconds(1));
        }
        combination.forEach(o::param);
        Collection<RunResult> results = new Runner(o.build()).run();
        if (results.size() != 1) {
            throw new IllegalStateException(benchmark.getSimpleName() + "." + method + " " + combination + " gave "
                    + results.size() + " results, expected 1");
        }
        return results.iterator().next();
    }

    /** The names of a class's {@link Benchmark} methods that match {@code regex} (all when empty), sorted. */
    private static List<String> benchmarkMethods(Class<?> benchmark, String regex) {
        Pattern match = Pattern.compile(regex.isEmpty() ? ".*" : ".*" + regex);
        List<String> names = new ArrayList<>();
        for (Method m : benchmark.getMethods()) {
            if (m.isAnnotationPresent(Benchmark.class) && match.matcher(m.getName()).matches()) {
                names.add(m.getName());
            }
        }
        Collections.sort(names);
        return names;
    }

    /**
     * Every combination of a class's {@link Param} fields' values, in declaration order, {@code overrides} replacing
     * a field's values.
     */
    private static List<Map<String, String>> parameterCombinations(Class<?> benchmark,
                                                                   Map<String, String[]> overrides) {
        List<Map<String, String>> combinations = new ArrayList<>();
        combinations.add(new LinkedHashMap<>());
        for (Field f : benchmark.getFields()) {
            Param p = f.getAnnotation(Param.class);
            if (p == null) {
                continue;
            }
            String[] values = overrides.getOrDefault(f.getName(), p.value());
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> c : combinations) {
                for (String v : values) {
                    Map<String, String> d = new LinkedHashMap<>(c);
                    d.put(f.getName(), v);
                    next.add(d);
                }
            }
            combinations = next;
        }
        return combinations;
    }

    /**
     * Prints how long the JIT compiled while a row was measured: a compiler thread takes a core, which a two-thread
     * row on a two-core machine feels and a one-thread row does not, so a slow row with much compilation says why.
     */
    private static void logCompilation(String method, RunResult r) {
        Result<?> compiled = null;
        for (Map.Entry<String, Result> e : r.getSecondaryResults().entrySet()) {
            if (e.getKey().endsWith("compiler.time.profiled")) {
                compiled = e.getValue();
            }
        }
        if (compiled != null) {
            StringBuilder params = new StringBuilder();
            for (String key : r.getParams().getParamsKeys()) {
                params.append(' ').append(key).append('=').append(r.getParams().getParam(key));
            }
            System.out.printf(Locale.ROOT, "JIT compilation while measuring %s%s: %.0f ms%n", method, params,
                    compiled.getScore());
        }
    }

    /** Heap bytes allocated per all-MiniLM-L6-v2 run on two threads, after warm-up, by every thread of the JVM. */
    private static long allocationPerRun() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
                ManagementFactory.getThreadMXBean();
        Map<String, Tensor> feeds = RealModels.inputs("all-minilm-l6-v2");
        try (Environment env = Environment.create();
             Session s = env.createSession(RealModels.file("all-minilm-l6-v2"), new SessionOptions()
                     .intraOpThreads(2))) {
            for (int i = 0; i < 30; i++) {
                s.run(feeds);
            }
            int runs = 20;
            long before = allocated(threads);
            for (int i = 0; i < runs; i++) {
                s.run(feeds);
            }
            return (allocated(threads) - before) / runs;
        }
    }

    private static long allocated(com.sun.management.ThreadMXBean mx) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long b = mx.getThreadAllocatedBytes(t.getId());
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }

    /**
     * What {@link PeakRss} prints for all-MiniLM-L6-v2 in a fresh JVM with default flags and the given options: for
     * Ortex the heap the session holds and the peak resident memory, for ONNX Runtime the peak, in KB; empty when it
     * failed.
     */
    private static long[] peakRss(String runtime, String... jvmOptions) throws IOException, InterruptedException {
        String out = runJava(List.of(jvmOptions), PeakRss.class, "all-minilm-l6-v2", runtime);
        if (out == null) {
            return new long[0];
        }
        // the figures are the last lines: whatever else reached stdout comes before them
        List<String> lines = out.lines().filter(l -> l.matches("[0-9]+")).toList();
        return lines.stream().mapToLong(Long::parseLong).toArray();
    }

    /**
     * Runs a class's {@code main} in a fresh JVM of this one's kind, with the Vector API module and the model folder;
     * returns what it printed, or null when it failed, after printing the end of its standard error.
     */
    private static String runJava(List<String> jvmOptions, Class<?> main, String... args)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector", "-cp", cp));
        cmd.addAll(jvmOptions);
        if (System.getProperty("ortex.models") != null) {
            cmd.add("-Dortex.models=" + System.getProperty("ortex.models"));
        }
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile("ortex-report-", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            int status = p.waitFor();
            if (status == 0 && !out.isEmpty()) {
                return out;
            }
            List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8);
            System.err.println(main.getSimpleName() + " " + String.join(" ", args) + " exited with " + status + ": "
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size())));
            return null;
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /**
     * Measures a real model or a matrix product ({@code matmul-N}) with {@link InterleavedRuns} in a JVM of its own
     * (the JMH forks' options).
     */
    private Interleaved interleaved(String target) throws IOException, InterruptedException {
        System.out.println("interleaved runs of " + target);
        String[] args = quick ? new String[] {target, "--quick"} : new String[] {target};
        String out = runJava(List.of("-Xss8m"), InterleavedRuns.class, args);
        if (out == null) {
            throw new IllegalStateException("InterleavedRuns " + target + " failed");
        }
        Map<String, double[]> figures = new LinkedHashMap<>();
        for (String line : out.lines().toList()) {
            String[] w = line.trim().split(" ");
            int numbers = w[0].equals("side") ? 3 : w[0].equals("ratio") || w[0].equals("scaling") ? 2 : -1;
            if (numbers < 0 || w.length < numbers) {
                continue;
            }
            double[] f = new double[w.length - numbers];
            for (int i = numbers; i < w.length; i++) {
                f[i - numbers] = Double.parseDouble(w[i]);
            }
            figures.put(String.join(" ", List.of(w).subList(0, numbers)), f);
        }
        return new Interleaved(target, figures);
    }

    private String markdown(long allocation, long[] ortexMemory, long[] ortexSerial, long[] ortMemory) {
        StringBuilder b = new StringBuilder();
        b.append("# Performance\n\n");
        b.append("Generated by `benchmarks/performance-report` on ").append(LocalDate.now()).append(quick
                ? " (quick mode: short iterations, not for publishing)" : "").append(". Ortex and ONNX Runtime run "
                + "the same model with the same inputs and thread count in the same run, and the ratio is Ortex's "
                + "time over ONNX Runtime's (below 1 means Ortex is faster). The real models and the matrix products "
                + "take turns with ONNX Runtime in one process (their sections say how); every other figure is the "
                + "median of JMH samples, the two sides of a row running back to back, "
                + (quick ? "once" : ROUNDS + " times") + ", alternating which goes first, each keeping the lowest "
                + "of its medians: the host's speed drifts, so rows measured far apart would compare the drift "
                + "too.\n\n");
        b.append("| | |\n|---|---|\n");
        b.append("| machine | ").append(cpu()).append(" |\n");
        b.append("| JDK | ").append(System.getProperty("java.vm.vendor")).append(' ')
                .append(System.getProperty("java.runtime.version")).append(" |\n");
        b.append("| Ortex CPU EP kernels | ").append(VectorSupport.description()).append(" |\n");
        b.append("| ONNX Runtime | ").append(ortVersion()).append(" (Java package, CPU EP, default optimizations)"
                + " |\n\n");
        modelsMarkdown(b);
        productsMarkdown(b);
        String group = null;
        for (Row r : rows) {
            if (!r.group().equals(group)) {
                group = r.group();
                b.append("## ").append(group).append("\n\n");
                boolean gflops = r.flops() > 0;
                b.append("| benchmark | threads | Ortex ms | ONNX Runtime ms | ratio |")
                        .append(gflops ? " Ortex " + r.rate() + " | ONNX Runtime " + r.rate() + " |" : "")
                        .append('\n');
                b.append("|---|---|---|---|---|").append(gflops ? "---|---|" : "").append('\n');
            }
            b.append("| ").append(r.what()).append(" | ").append(r.threads()).append(" | ")
                    .append(fmt(r.ortexMs())).append(" | ").append(fmt(r.ortMs())).append(" | ")
                    .append(String.format(Locale.ROOT, "%.2fx", r.ortexMs() / r.ortMs())).append(" |");
            if (r.flops() > 0) {
                b.append(' ').append(String.format(Locale.ROOT, "%.1f", r.flops() / r.ortexMs() / 1e6))
                        .append(" | ").append(String.format(Locale.ROOT, "%.1f", r.flops() / r.ortMs() / 1e6))
                        .append(" |");
            }
            b.append('\n');
            if (rows.indexOf(r) == rows.size() - 1 || !rows.get(rows.indexOf(r) + 1).group().equals(group)) {
                b.append('\n');
            }
        }
        b.append("## Memory\n\n");
        b.append("- Heap allocated per all-MiniLM-L6-v2 run (2 threads, after warm-up, all threads): ")
                .append(allocation < 0 ? "not measured" : String.format(Locale.ROOT, "%.1f KB", allocation / 1024.0))
                .append(".\n");
        long modelBytes;
        try {
            modelBytes = Files.size(RealModels.file("all-minilm-l6-v2"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        double model = modelBytes / 1048576.0;
        b.append("all-MiniLM-L6-v2 (").append(String.format(Locale.ROOT, "%.0f MB", model)).append(" file) in a "
                + "fresh JVM with default flags, 2 threads, ten runs:\n\n");
        b.append("| | Ortex | ONNX Runtime |\n|---|---|---|\n");
        b.append("| heap held by the session once created (after a full GC) | ")
                .append(ortexMemory.length == 2 ? mb(ortexMemory[0], model) : "not measured").append(" | - |\n");
        b.append("| peak resident memory of the process | ")
                .append(ortexMemory.length == 2 ? mb(ortexMemory[1], model) : "not measured").append(" | ")
                .append(ortMemory.length == 1 ? mb(ortMemory[0], model) : "not measured").append(" |\n");
        b.append("| peak resident memory with `").append(String.join(" ", LAUNCHER_VERB_GC))
                .append("`, as the launcher runs a verb | ")
                .append(ortexSerial.length == 2 ? mb(ortexSerial[1], model) : "not measured").append(" | - |\n\n");
        b.append("A JVM with default flags sizes its heap from the machine's memory (an initial heap of 1/64 of it) "
                + "and G1 grows it while the warm-up runs allocate (before the JIT compiles the vector kernels), so "
                + "the peak of an Ortex process is mostly the collector's choice; the heap the session holds is "
                + "Ortex's own. The Ortex process holds the runtime and the CPU EP, as an application that depends "
                + "on them does (ONNX Runtime's EP is not loaded). A session from a file leaves the model's large "
                + "weights in the file: their bytes are never read onto the heap, and each is decoded once, into "
                + "what its kernel keeps, but for the word-embedding table, whose rows the Gather reads from a "
                + "read-only mapping of the file (only the pages of the rows runs use become resident).\n\n");
        b.append("Regenerate with `benchmarks/performance-report` (about 30 minutes; it builds the benchmarks when "
                + "needed and runs them on the JDK the distribution's launcher would pick).\n");
        return b.toString();
    }

    /** The real models' tables: the runtimes side by side, then how each scales from 1 to 2 threads. */
    private void modelsMarkdown(StringBuilder b) {
        b.append("## Real models (batch 1), the two runtimes taking turns in one process\n\n");
        b.append("Each model runs in a JVM of its own that holds four sessions, Ortex and ONNX Runtime on 1 and on 2 "
                + "threads, and runs them in turn, each for a block of a quarter of a second (after a short unrecorded "
                + "start), in " + (quick ? "3" : "24") + " rounds. A row's times are the medians of its blocks' "
                + "medians; its ratio is the median of the rounds' ratios of Ortex's block to ONNX Runtime's, which "
                + "ran a moment apart. Before each block a probe times vector multiply-adds from registers: on a "
                + "shared host the core is slowed now and then by another tenant, and the last two columns give the "
                + "ratio over the rounds where both blocks ran at full speed and where both ran slowed (the probe "
                + "1.1x and 1.2x its fastest time).\n\n");
        b.append("| model | threads | Ortex ms | ONNX Runtime ms | ratio | middle half of the rounds | at full speed "
                + "(rounds) | slowed (rounds) |\n|---|---|---|---|---|---|---|---|\n");
        for (Interleaved m : models) {
            for (int threads = 1; threads <= 2; threads++) {
                b.append("| ").append(m.target()).append(" | ").append(threads).append(" | ")
                        .append(turns(m, threads)).append(" |\n");
            }
        }
        b.append("\nFrom 1 to 2 threads (the median of the rounds' ratios of a runtime's 1-thread block to its "
                + "2-thread block):\n\n");
        b.append("| model | Ortex | at full speed (rounds) | ONNX Runtime | at full speed (rounds) |\n"
                + "|---|---|---|---|---|\n");
        for (Interleaved m : models) {
            b.append("| ").append(m.target()).append(" | ").append(scaling(m)).append(" |\n");
        }
        b.append('\n');
    }

    /** The matrix products' table, measured as the real models are, with GFLOP/s and the scaling beside. */
    private void productsMarkdown(StringBuilder b) {
        b.append("## Matrix product C = A x B (B constant), one MatMul node, the two runtimes taking turns\n\n");
        b.append("Square float32 matrices, B a constant initializer (as a layer's weights are), both runtimes writing "
                + "C into an output the caller made once (pinned outputs), measured as the real models are (four "
                + "sessions taking turns in one JVM, " + (quick ? "3" : "24") + " rounds). GFLOP/s = 2 n^3 over the "
                + "row's time.\n\n");
        b.append("| n | threads | Ortex ms | ONNX Runtime ms | ratio | middle half of the rounds | at full speed "
                + "(rounds) | slowed (rounds) | Ortex GFLOP/s | ONNX Runtime GFLOP/s |\n"
                + "|---|---|---|---|---|---|---|---|---|---|\n");
        for (Interleaved p : products) {
            double n = Double.parseDouble(p.target().substring(InterleavedRuns.MATMUL.length()));
            double flops = 2 * n * n * n;
            for (int threads = 1; threads <= 2; threads++) {
                b.append("| ").append((long) n).append(" | ").append(threads).append(" | ").append(turns(p, threads))
                        .append(String.format(Locale.ROOT, " | %.1f | %.1f |%n",
                                flops / p.get("side ortex " + threads)[0] / 1e6,
                                flops / p.get("side onnxruntime " + threads)[0] / 1e6));
            }
        }
        b.append("\nFrom 1 to 2 threads:\n\n");
        b.append("| n | Ortex | at full speed (rounds) | ONNX Runtime | at full speed (rounds) |\n"
                + "|---|---|---|---|---|\n");
        for (Interleaved p : products) {
            b.append("| ").append(p.target().substring(InterleavedRuns.MATMUL.length())).append(" | ")
                    .append(scaling(p)).append(" |\n");
        }
        b.append('\n');
    }

    /**
     * The cells of one row of a taking-turns table: both runtimes' times, the ratio, its middle half, and the ratio at
     * full speed and slowed.
     */
    private static String turns(Interleaved m, int threads) {
        double[] ratio = m.get("ratio " + threads);
        return fmt(m.get("side ortex " + threads)[0]) + " | " + fmt(m.get("side onnxruntime " + threads)[0]) + " | "
                + times(ratio[1]) + " | " + times(ratio[0]) + " - " + times(ratio[2]) + " | "
                + phase(ratio[3], ratio[4]) + " | " + phase(ratio[5], ratio[6]);
    }

    /** The cells of one row of a scaling table: each runtime's 1 -> 2 thread scaling, and at full speed. */
    private static String scaling(Interleaved m) {
        double[] ortex = m.get("scaling ortex");
        double[] ort = m.get("scaling onnxruntime");
        return times(ortex[1]) + " | " + phase(ortex[3], ortex[4]) + " | " + times(ort[1]) + " | "
                + phase(ort[3], ort[4]);
    }

    private static String times(double ratio) {
        return String.format(Locale.ROOT, "%.2fx", ratio);
    }

    private static String phase(double ratio, double rounds) {
        return rounds == 0 ? "- (0)" : String.format(Locale.ROOT, "%.2fx (%d)", ratio, (int) rounds);
    }

    private static String mb(long kb, double modelMb) {
        return String.format(Locale.ROOT, "%.0f MB (%.2fx the model)", kb / 1024.0, kb / 1024.0 / modelMb);
    }

    private static String fmt(double ms) {
        if (Double.isNaN(ms)) {
            return "-";
        }
        return ms >= 10 ? String.format(Locale.ROOT, "%.1f", ms) : ms >= 1 ? String.format(Locale.ROOT, "%.2f", ms)
                : String.format(Locale.ROOT, "%.3f", ms);
    }

    private static String ortVersion() {
        try {
            return OrtEnvironment.getEnvironment().getVersion();
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    private static String cpu() {
        try {
            String name = "unknown CPU";
            String flags = "";
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name") && name.equals("unknown CPU")) {
                    name = line.substring(line.indexOf(':') + 1).trim();
                } else if (line.startsWith("flags") && flags.isEmpty()) {
                    List<String> simd = new ArrayList<>();
                    for (String f : line.substring(line.indexOf(':') + 1).trim().split(" ")) {
                        if (f.equals("avx2") || f.equals("fma") || f.startsWith("avx512") || f.startsWith("amx")) {
                            simd.add(f);
                        }
                    }
                    flags = String.join(" ", simd);
                }
            }
            return name + ", " + Runtime.getRuntime().availableProcessors() + " cores, " + flags;
        } catch (IOException e) {
            return System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " cores";
        }
    }
}
