package io.ortex.shell.internal;

import io.ortex.api.Environment;
import io.ortex.api.Names;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.ValueCopy;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * {@code ortex run MODEL}: loads a model, runs it on given or seeded random inputs, and reports the outputs, which
 * EP ran which node, and the timings. Random inputs are made only when no input is given at all, or for the inputs
 * left out when {@code --random-inputs} asks for them; either way the report names them. An input left out
 * otherwise is an error.
 */
public final class RunCommand {
    /** The flags of this verb. */
    public static final Set<String> FLAGS = Set.of("--json", "--verbose", "--random-inputs");
    /** The valued options of this verb. */
    public static final Set<String> VALUED = union(SessionSettings.VALUED, Set.of("--input", "--inputs", "--shape",
            "--output-dir", "--repeat", "--warmup", "--seed", "--profile"));

    private RunCommand() {
    }

    static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> s = new HashSet<>(a);
        s.addAll(b);
        return Set.copyOf(s);
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
            throw new UsageException("run needs exactly one MODEL, got " + o.positional().size());
        }
        Path model = Path.of(o.positional().get(0));
        try (Environment env = SessionSettings.environment(o)) {
            long t0 = System.nanoTime();
            SessionOptions options = SessionSettings.sessionOptions(o, env);
            if (o.has("--profile")) {
                options.enableProfiling(profileFile(o.get("--profile", "")));
            }
            try (Session session = env.createSession(model, options)) {
                return runSession(session, model, o, out, (System.nanoTime() - t0) / 1e6);
            }
        }
    }

    /**
     * Runs a session that is already open (the shell's {@code ortex:run ID}); the options that choose EPs or shape
     * the environment are refused, since the session has its EPs.
     *
     * @param session the open session
     * @param o the parsed options; the positional argument is the session's id
     * @param out where the report goes
     * @return the exit status
     */
    public static int runOpen(Session session, Options o, PrintStream out) {
        for (String option : union(SessionSettings.VALUED, Set.of("--profile"))) {
            if (o.has(option)) {
                throw new UsageException(option + " applies when a session is opened, not to open session "
                        + session.id());
            }
        }
        return runSession(session, Path.of(session.modelSource()), o, out, 0);
    }

    private static int runSession(Session session, Path model, Options o, PrintStream out, double createMs) {
        int repeat = o.getInt("--repeat", 1, 1);
        int warmup = o.getInt("--warmup", 0, 0);
        long seed = o.getInt("--seed", 42, 0);
        Inputs given = inputs(session, o, new SplittableRandom(seed));
        Map<String, Tensor> inputs = given.values();
        for (int i = 0; i < warmup; i++) {
            session.run(inputs);
        }
        double[] times = new double[repeat];
        Map<String, Tensor> outputs = null;
        for (int i = 0; i < repeat; i++) {
            long s = System.nanoTime();
            outputs = session.run(inputs);
            times[i] = (System.nanoTime() - s) / 1e6;
        }
        Latency latency = Latency.of(times);
        if (o.has("--output-dir")) {
            writeOutputs(outputs, Path.of(o.get("--output-dir", ".")));
        }
        Path profile = session.endProfiling().orElse(null);
        if (o.has("--json")) {
            out.println(json(model, session, createMs, latency, outputs, given.random(), seed, profile));
        } else {
            text(out, model, session, createMs, latency, outputs, given.random(), seed, profile);
        }
        return 0;
    }

    /** Checks a {@code --profile} file before the session is created, so a bad path fails before any work. */
    private static Path profileFile(String value) {
        if (value.isEmpty()) {
            throw new UsageException("--profile needs a file name");
        }
        Path file = Path.of(value).toAbsolutePath();
        if (Files.isDirectory(file)) {
            throw new UsageException("--profile " + value + " is a folder; give a file name");
        }
        Path parent = file.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new UsageException("--profile " + value + ": folder " + parent + " does not exist");
        }
        return file;
    }

    /**
     * The inputs of a run.
     *
     * @param values every input, by name
     * @param random the names of the inputs made up with random data, in the model's order
     */
    private record Inputs(Map<String, Tensor> values, List<String> random) {
    }

    private static Inputs inputs(Session session, Options o, SplittableRandom random) {
        Map<String, Tensor> given = new LinkedHashMap<>();
        List<TensorInfo> declared = session.inputs();
        if (o.has("--inputs")) {
            Path dir = Path.of(o.get("--inputs", "."));
            if (!Files.isDirectory(dir)) {
                throw new UsageException("--inputs " + dir + " is not a folder");
            }
            for (int i = 0; i < declared.size(); i++) {
                Path f = dir.resolve("input_" + i + ".pb");
                if (Files.exists(f)) {
                    given.put(declared.get(i).name(), TensorFiles.read(f));
                }
            }
            if (given.isEmpty() && !declared.isEmpty() && !o.has("--random-inputs")) {
                throw new UsageException("--inputs " + dir + " holds none of the model's inputs (input_0.pb to input_"
                        + (declared.size() - 1) + ".pb)");
            }
        }
        for (Map.Entry<String, String> e : o.keyValues("--input").entrySet()) {
            if (declared.stream().noneMatch(d -> d.name().equals(e.getKey()))) {
                throw new UsageException("--input " + e.getKey() + ": the model has no input "
                        + Names.quote(e.getKey()) + "; its inputs are "
                        + declared.stream().map(TensorInfo::name).toList());
            }
            given.put(e.getKey(), TensorFiles.read(Path.of(e.getValue())));
        }
        boolean anyGiven = o.has("--inputs") || o.has("--input");
        if (anyGiven && !o.has("--random-inputs")) {
            List<String> missing = declared.stream().map(TensorInfo::name).filter(n -> !given.containsKey(n))
                    .toList();
            if (!missing.isEmpty()) {
                throw new UsageException("input " + Names.quote(missing.get(0)) + " is not given" + (missing.size() > 1
                        ? " (nor " + String.join(", ", missing.subList(1, missing.size())) + ")" : "")
                        + ": give it with --input NAME=FILE.pb, or add --random-inputs to fill the inputs left out"
                        + " with random data");
            }
        }
        Map<String, long[]> shapes = new TreeMap<>();
        o.keyValues("--shape").forEach((k, v) -> {
            if (declared.stream().noneMatch(d -> d.name().equals(k))) {
                throw new UsageException("--shape " + k + ": the model has no input " + Names.quote(k)
                        + "; its inputs are "
                        + declared.stream().map(TensorInfo::name).toList());
            }
            if (given.containsKey(k)) {
                throw new UsageException("--shape " + k + ": input " + Names.quote(k)
                        + " is given from a file; --shape sizes"
                        + " random inputs only");
            }
            shapes.put(k, RandomInputs.parseShape(v, "--shape " + k));
        });
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        List<String> made = new ArrayList<>();
        for (TensorInfo info : declared) {
            Tensor t = given.get(info.name());
            if (t == null) {
                t = RandomInputs.make(info, shapes, random);
                made.add(info.name());
            }
            inputs.put(info.name(), t);
        }
        return new Inputs(inputs, List.copyOf(made));
    }

    private static void writeOutputs(Map<String, Tensor> outputs, Path dir) {
        int i = 0;
        for (Map.Entry<String, Tensor> e : outputs.entrySet()) {
            TensorFiles.write(e.getValue(), e.getKey(), dir.resolve("output_" + i++ + ".pb"));
        }
    }

    private static String json(Path model, Session session, double createMs, Latency latency,
                               Map<String, Tensor> outputs, List<String> random, long seed, Path profile) {
        return Json.render(g -> {
            g.writeStartObject();
            g.writeStringField("model", model.toString());
            g.writeArrayFieldStart("random_inputs");
            for (String name : random) {
                g.writeString(name);
            }
            g.writeEndArray();
            if (!random.isEmpty()) {
                g.writeNumberField("seed", seed);
            }
            g.writeNumberField("session_create_ms", round(createMs));
            g.writeObjectFieldStart("latency_ms");
            g.writeNumberField("min", round(latency.min()));
            g.writeNumberField("median", round(latency.median()));
            g.writeNumberField("p90", round(latency.p90()));
            g.writeNumberField("mean", round(latency.mean()));
            g.writeNumberField("runs", latency.runs());
            g.writeEndObject();
            g.writeArrayFieldStart("outputs");
            for (Map.Entry<String, Tensor> e : outputs.entrySet()) {
                g.writeStartObject();
                g.writeStringField("name", e.getKey());
                g.writeStringField("type", e.getValue().type().displayName());
                g.writeArrayFieldStart("shape");
                for (long d : e.getValue().shape()) {
                    g.writeNumber(d);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("eps");
            for (String ep : session.executionProviders()) {
                g.writeString(ep);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("assignment");
            for (NodeAssignment a : session.assignment()) {
                g.writeStartObject();
                g.writeStringField("node", a.node());
                g.writeStringField("op", a.opType());
                g.writeStringField("ep", a.ep());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("copies");
            for (ValueCopy c : session.valueCopies()) {
                g.writeStartObject();
                g.writeStringField("value", c.value());
                g.writeStringField("from", c.from());
                g.writeStringField("to", c.to());
                g.writeStringField("when", c.kind().name().toLowerCase(Locale.ROOT));
                g.writeNumberField("count", c.count());
                g.writeNumberField("bytes", c.bytes());
                g.writeEndObject();
            }
            g.writeEndArray();
            if (profile != null) {
                g.writeStringField("profile", profile.toString());
            }
            g.writeEndObject();
        });
    }

    private static void text(PrintStream out, Path model, Session session, double createMs, Latency latency,
                             Map<String, Tensor> outputs, List<String> random, long seed, Path profile) {
        Table.line(out, "model     %s", model);
        if (!random.isEmpty()) {
            Table.line(out, "inputs    random (seed %d): %s", seed, String.join(", ", random));
        }
        Table.line(out, "EPs       %s", String.join(", ", session.executionProviders()));
        Map<String, Integer> perEp = new TreeMap<>();
        session.assignment().forEach(a -> perEp.merge(a.ep(), 1, Integer::sum));
        perEp.forEach((ep, n) -> Table.line(out, "          %d nodes on %s", n, ep));
        for (Map.Entry<String, Tensor> e : outputs.entrySet()) {
            Table.line(out, "output    %s%s", Names.escape(e.getKey()),
                    e.getValue().toString().replaceFirst("^Tensor", ""));
        }
        copies(out, session.valueCopies());
        out.printf("session   %.1f ms to create%n", createMs);
        out.printf("latency   min %.3f ms, median %.3f ms, p90 %.3f ms over %d runs%n", latency.min(),
                latency.median(), latency.p90(), latency.runs());
        if (profile != null) {
            out.printf("profile   %s (Chrome trace: chrome://tracing or ui.perfetto.dev)%n", profile);
        }
    }

    /** One line naming the copies between memories, with their totals; nothing where there are none. */
    private static void copies(PrintStream out, List<ValueCopy> copies) {
        if (copies.isEmpty()) {
            return;
        }
        List<String> each = new ArrayList<>();
        long count = 0;
        long bytes = 0;
        for (ValueCopy c : copies) {
            each.add(Names.escape(c.value()) + " " + c.from() + "->" + c.to());
            count += c.count();
            bytes += c.bytes();
        }
        Table.line(out, "copies    %s (%d copies, %d bytes)", String.join(", ", each), count, bytes);
    }

    static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
