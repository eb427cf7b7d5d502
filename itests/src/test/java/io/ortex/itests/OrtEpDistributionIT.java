package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.TensorComparison;
import io.ortex.onnx.proto.Onnx;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ONNX Runtime EP as the distribution ships it in {@code deploy/}: the five real models of the shared cache run
 * on it (every node of the main graph) with outputs equal to ONNX Runtime's Java API called directly within 1e-5, in
 * the framework (one shell running all five) and on the JPMS module path; {@code ortex:eps} shows it arrive when its
 * jar is dropped into {@code deploy/} and drain while a session holds it after the jar is deleted; plugin-EP
 * libraries registered through {@code ortex:register} and {@code .cfg} descriptors fail with messages naming the file.
 * Models missing from the cache are skipped, saying so.
 */
class OrtEpDistributionIT {
    private static final String ORT_EP = "OrtExecutionProvider";
    private static final Path DIST = Path.of(System.getProperty("ortex.dist", "../assembly/target/ortex"));
    private static final Pattern ASSIGNMENT = Pattern.compile(
            "\"node\" : \"([^\"]+)\",\\s*\"op\" : \"([^\"]+)\",\\s*\"ep\" : \"([^\"]+)\"");

    /** A model with seeded inputs written as TensorProto files. */
    record Case(String name, Path model, Map<String, Tensor> inputs, List<String> inputArgs) {
    }

    private static Path cached(String name) {
        Path dir = Path.of(System.getProperty("ortex.models", System.getProperty("user.home")
                + "/.cache/ortex-models"));
        return dir.resolve(name).resolve("model.onnx");
    }

    private static Tensor floats(long seed, long... shape) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] f = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return Tensor.ofFloats(f, shape);
    }

    private static List<Case> cases(Path dir) throws Exception {
        Map<String, Map<String, Tensor>> inputs = new LinkedHashMap<>();
        long[] ids = new long[128];
        long[] mask = new long[128];
        SplittableRandom r = new SplittableRandom(5);
        for (int i = 0; i < 128; i++) {
            ids[i] = i == 0 ? 101 : i == 127 ? 102 : 1000 + r.nextInt(29000);
            mask[i] = 1;
        }
        Map<String, Tensor> minilm = new LinkedHashMap<>();
        minilm.put("input_ids", Tensor.ofLongs(ids, 1, 128));
        minilm.put("attention_mask", Tensor.ofLongs(mask, 1, 128));
        minilm.put("token_type_ids", Tensor.ofLongs(new long[128], 1, 128));
        inputs.put("all-minilm-l6-v2", minilm);
        inputs.put("ppocr-v4-det", Map.of("x", floats(6, 1, 3, 320, 320)));
        Map<String, Tensor> vad = new LinkedHashMap<>();
        vad.put("input", floats(7, 1, 512));
        vad.put("state", floats(8, 2, 1, 128));
        vad.put("sr", Tensor.ofLongs(new long[] {16000}));
        inputs.put("silero-vad-v5", vad);
        inputs.put("oww-melspectrogram", Map.of("input", floats(9, 1, 16000)));
        inputs.put("oww-embedding", Map.of("input_1", floats(10, 1, 76, 32, 1)));
        List<Case> out = new ArrayList<>();
        for (Map.Entry<String, Map<String, Tensor>> e : inputs.entrySet()) {
            Path model = cached(e.getKey());
            if (!Files.isRegularFile(model)) {
                System.out.println("OrtEpDistributionIT: " + model + " is missing (run ../shared/models/fetch.sh "
                        + e.getKey() + "); skipped");
                continue;
            }
            List<String> args = new ArrayList<>();
            for (Map.Entry<String, Tensor> in : e.getValue().entrySet()) {
                Path file = dir.resolve(e.getKey() + "-" + in.getKey() + ".pb");
                Files.write(file, TensorCodec.toProto(in.getValue(), in.getKey()).toByteArray());
                args.add("--input");
                args.add(in.getKey() + "=" + file);
            }
            out.add(new Case(e.getKey(), model, e.getValue(), args));
        }
        assumeTrue(!out.isEmpty(), "no model of the shared cache is present; skipped");
        return out;
    }

    @Test
    void theRealModelsMatchOnnxRuntimeInTheFrameworkAndOnTheModulePath(@TempDir Path dir) throws Exception {
        List<Case> cases = cases(dir);
        try (ShellProcess shell = ShellProcess.start(DIST.toAbsolutePath())) {
            for (Case c : cases) {
                Path out = dir.resolve("framework-" + c.name());
                String json = shell.run("ortex:run " + c.model() + " " + String.join(" ", c.inputArgs())
                        + " --ep " + ORT_EP + " --json --output-dir " + out);
                check(c, json, out, "framework");
            }
        }
        for (Case c : cases) {
            Path out = dir.resolve("modulepath-" + c.name());
            List<String> args = new ArrayList<>(List.of("run", c.model().toString()));
            args.addAll(c.inputArgs());
            args.addAll(List.of("--ep", ORT_EP, "--json", "--output-dir", out.toString()));
            DistributionIT.Result r = DistributionIT.ortexOnModulePath(args.toArray(new String[0]));
            assertEquals(0, r.exit(), r.err());
            check(c, r.out(), out, "module path");
        }
    }

    private static void check(Case c, String json, Path outputs, String where) throws Exception {
        Matcher m = ASSIGNMENT.matcher(json);
        Map<String, String> elsewhere = new LinkedHashMap<>();
        List<String> controlFlow = new ArrayList<>();
        int nodes = 0;
        while (m.find()) {
            nodes++;
            if (!m.group(3).equals(ORT_EP)) {
                elsewhere.put(m.group(1), m.group(3));
            } else if (List.of("If", "Loop", "Scan").contains(m.group(2))) {
                controlFlow.add(m.group(1) + "/");
            }
        }
        assertTrue(nodes > 0, where + " " + c.name() + ": no assignment in " + json);
        // the nodes inside a control-flow node run in ONNX Runtime with it; the runtime still lists them apart
        elsewhere.keySet().removeIf(n -> controlFlow.stream().anyMatch(n::startsWith));
        assertEquals(Map.of(), elsewhere, where + " " + c.name() + ": nodes not on " + ORT_EP);
        List<Tensor> want = direct(c);
        for (int k = 0; k < want.size(); k++) {
            Path file = outputs.resolve("output_" + k + ".pb");
            Tensor got = TensorCodec.fromProto(Onnx.TensorProto.parseFrom(Files.readAllBytes(file)));
            assertNull(TensorComparison.difference(want.get(k), got, 0, 1e-5), where + " " + c.name()
                    + ": output " + k);
        }
    }

    /** ONNX Runtime's Java API on the same inputs, default optimizations, outputs in the model's order. */
    private static List<Tensor> direct(Case c) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Map<String, OnnxTensor> feeds = new HashMap<>();
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions();
             OrtSession s = env.createSession(c.model().toString(), o)) {
            for (Map.Entry<String, Tensor> e : c.inputs().entrySet()) {
                Tensor t = e.getValue();
                feeds.put(e.getKey(), t.type() == ElementType.FLOAT
                        ? OnnxTensor.createTensor(env, FloatBuffer.wrap(t.floats()), t.shape())
                        : OnnxTensor.createTensor(env, LongBuffer.wrap(t.longs()), t.shape()));
            }
            List<Tensor> out = new ArrayList<>();
            try (OrtSession.Result r = s.run(feeds)) {
                for (int i = 0; i < r.size(); i++) {
                    OnnxTensor t = (OnnxTensor) r.get(i);
                    out.add(Tensor.ofFloats(t.getFloatBuffer().array(), t.getInfo().getShape()));
                }
            }
            return out;
        } finally {
            feeds.values().forEach(OnnxTensor::close);
        }
    }

    private static Path ortJar(Path home) throws Exception {
        try (Stream<Path> s = Files.list(home.resolve("deploy"))) {
            return s.filter(p -> p.getFileName().toString().startsWith("io.ortex.ep.ort")).findFirst()
                    .orElseThrow(() -> new AssertionError("no ONNX Runtime EP in deploy/"));
        }
    }

    private static String awaitEps(ShellProcess shell, String what, java.util.function.Predicate<String> condition)
            throws Exception {
        long end = System.currentTimeMillis() + 15_000;
        String eps = shell.run("ortex:eps");
        while (!condition.test(eps)) {
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("ortex:eps never showed " + what + "; last:\n" + eps);
            }
            Thread.sleep(100);
            eps = shell.run("ortex:eps");
        }
        return eps;
    }

    @Test
    void ortexEpsShowsTheOrtEpArriveAndDrain(@TempDir Path dir) throws Exception {
        Path home = ShellProcess.copyDistribution(dir.resolve("ortex"));
        Files.writeString(home.resolve("conf/io.ortex.runtime.cfg"), "drain.outcome=wait\ndrain.limit.seconds=1\n");
        Path jar = ortJar(home);
        Path aside = Files.move(jar, dir.resolve(jar.getFileName()));
        Path model = dir.resolve("add.onnx");
        Files.write(model, DistributionIT.addModel().toByteArray());
        try (ShellProcess shell = ShellProcess.start(home)) {
            assertFalse(shell.run("ortex:eps").contains(ORT_EP), "not deployed yet");
            Path tmp = home.resolve("deploy/ort.jar.tmp");
            Files.copy(aside, tmp);
            Path deployed = Files.move(tmp, home.resolve("deploy/ort.jar"), StandardCopyOption.ATOMIC_MOVE);
            String arrived = awaitEps(shell, ORT_EP, eps -> eps.contains(ORT_EP));
            System.out.println("OrtEpDistributionIT: ortex:eps after the ONNX Runtime EP was dropped in:\n" + arrived);
            assertTrue(arrived.lines().anyMatch(l -> l.startsWith(ORT_EP) && l.contains(" CPU ")
                    && l.contains(" 1.29.0 ") && l.contains(" ACTIVE ")), arrived);
            String open = shell.run("ortex:open " + model + " --ep " + ORT_EP);
            String id = open.strip();
            assertTrue(id.matches("s\\d+"), open);
            String run = shell.run("ortex:run " + id + " --shape a=4 --repeat 2");
            assertTrue(run.contains(ORT_EP), run);
            Files.delete(deployed);
            String draining = awaitEps(shell, ORT_EP + " DRAINING", eps -> eps.lines()
                    .anyMatch(l -> l.startsWith(ORT_EP) && l.contains("DRAINING") && l.contains(id)));
            System.out.println("OrtEpDistributionIT: ortex:eps while session " + id + " holds the removed EP:\n"
                    + draining);
            assertEquals("closed " + id, shell.run("ortex:close " + id).strip());
            awaitEps(shell, "the ONNX Runtime EP gone", eps -> !eps.contains(ORT_EP));
        }
    }

    @Test
    void pluginLibrariesThatCannotLoadAreRefusedNamingTheFile(@TempDir Path dir) throws Exception {
        Path home = ShellProcess.copyDistribution(dir.resolve("ortex"));
        Path notALibrary = Files.writeString(dir.resolve("libvendor_ep.so"), "not a shared library");
        Path noEntryPoints = Path.of(System.getProperty("java.home"), "lib", "libjava.so");
        try (ShellProcess shell = ShellProcess.start(home)) {
            String missing = shell.run("ortex:register vendor " + dir.resolve("libmissing.so"));
            assertTrue(missing.startsWith("ortex: ") && missing.contains("libmissing.so does not exist"), missing);
            String text = shell.run("ortex:register vendor " + notALibrary);
            assertTrue(text.startsWith("ortex: ") && text.contains(notALibrary.toString())
                    && text.contains("ONNX Runtime cannot register"), text);
            if (Files.isRegularFile(noEntryPoints)) {
                String entry = shell.run("ortex:register vendor " + noEntryPoints);
                assertTrue(entry.contains("CreateEpFactories"), entry);
            }
            for (String e : List.of(missing, text)) {
                assertEquals(1, e.strip().lines().count(), e);
            }
            assertTrue(shell.run("ortex:unregister vendor").startsWith("ortex: "));
            // a descriptor in deploy/ registers the library it names: here one ONNX Runtime refuses
            Files.writeString(home.resolve("deploy/io.ortex.runtime.library-vendor.cfg"), "path=" + notALibrary
                    + "\n");
            // ... and an EP jar, which the same mechanism takes: its devices arrive under the descriptor's name
            Path example = EpSplitIT.exampleJar();
            Files.writeString(home.resolve("deploy/io.ortex.runtime.library-example.cfg"), "path=" + example
                    + "\nname=example.virtual\n");
            // the refused library is logged once, on stderr, which is merged into this shell's output on another
            // thread and may land anywhere, even inside a table line: so the table of the example EP is awaited
            // without any mention of the refused library, which a table that listed it would never be
            String eps = awaitEps(shell, "the example EP from its descriptor, and no line of the refused 'vendor'",
                    s -> s.lines().anyMatch(l -> l.startsWith("ExampleExecutionProvider") && l.contains(" NPU "))
                            && !s.contains("vendor"));
            assertFalse(eps.contains("vendor"), eps);
            Files.delete(home.resolve("deploy/io.ortex.runtime.library-example.cfg"));
            awaitEps(shell, "the example EP gone", s -> !s.contains("ExampleExecutionProvider"));
        }
    }
}
