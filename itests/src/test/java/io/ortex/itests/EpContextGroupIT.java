package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.TensorComparison;
import io.ortex.onnx.proto.Onnx;
import io.ortex.shell.internal.MlpModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * EPContext from the command line, in the distribution's framework: a group of two models that share their first
 * layer compiled with {@code compile --share} for the example EP's virtual NPU into two compiled models and one shared
 * context binary, smaller than the two binaries compiled apart; each compiled model loaded with
 * {@code ep.share_ep_contexts=1} computes what its source computes; {@code inspect} shows the EPContext nodes, the
 * binary present (then missing, with an error) and the compatibility verdicts; a sharing group never finished by a
 * stop still gets its binary when the command's runtime closes; and {@code --help} prints each verb's usage.
 */
class EpContextGroupIT {
    private static final Pattern SAVED = Pattern.compile("(\\d+) entries, (\\d+) bytes of entries stored once"
            + " instead of (\\d+): sharing saved (\\d+) bytes");

    private static List<String> npu(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--register", "example.virtual=" + EpSplitIT.exampleJar(), "--policy", "PREFER_NPU"));
        return all;
    }

    /** The arguments with the example EP registered under a {@code .virtual} name, for inspect. */
    private static List<String> example(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--register", "example.virtual=" + EpSplitIT.exampleJar()));
        return all;
    }

    private static DistributionIT.Result ortex(List<String> args) throws Exception {
        return DistributionIT.ortex(args.toArray(new String[0]));
    }

    /** Writes two models with the same first layer (32x256 weights) and their own heads. */
    static List<Path> twoModelsSharingALayer(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path a = Files.write(dir.resolve("intent.onnx"), MlpModel.build(32, 256, 10, 7, 1));
        Path b = Files.write(dir.resolve("topic.onnx"), MlpModel.build(32, 256, 10, 7, 2));
        return List.of(a, b);
    }

    @Test
    void aGroupCompiledWithShareLoadsBackAndIsSmallerThanCompiledApart(@TempDir Path dir) throws Exception {
        List<Path> models = twoModelsSharingALayer(dir.resolve("src"));
        Path out = dir.resolve("out");
        DistributionIT.Result group = ortex(npu("compile", models.get(0).toString(), models.get(1).toString(),
                "-o", out.toString(), "--share"));
        assertEquals(0, group.exit(), group.err());
        System.out.println("EpContextGroupIT: compile --share\n" + group.out());
        Path bin = out.resolve("intent_ctx_shared.bin");
        for (Path f : List.of(out.resolve("intent_ctx.onnx"), out.resolve("topic_ctx.onnx"), bin)) {
            assertTrue(Files.isRegularFile(f), f + " written");
            assertTrue(group.out().contains("wrote " + f + " (" + Files.size(f) + " bytes)"), group.out());
        }
        Matcher m = SAVED.matcher(group.out());
        assertTrue(m.find(), group.out());
        long saved = Long.parseLong(m.group(4));
        assertTrue(saved >= 4L * 32 * 256, "at least the first layer's weights are stored once: " + saved);

        long apart = 0;
        for (Path model : models) {
            String stem = model.getFileName().toString().replace(".onnx", "");
            Path alone = dir.resolve("apart").resolve(stem + "_ctx.onnx");
            Files.createDirectories(alone.getParent());
            DistributionIT.Result r = ortex(npu("compile", model.toString(), "-o", alone.toString()));
            assertEquals(0, r.exit(), r.err());
            try (var files = Files.list(alone.getParent())) {
                for (Path f : files.filter(f -> f.getFileName().toString().startsWith(stem)).toList()) {
                    apart += Files.size(f);
                }
            }
        }
        long shared = Files.size(bin) + Files.size(out.resolve("intent_ctx.onnx"))
                + Files.size(out.resolve("topic_ctx.onnx"));
        System.out.println("EpContextGroupIT: two models compiled apart " + apart + " bytes, as a group " + shared
                + " bytes (shared binary " + Files.size(bin) + ")");
        assertTrue(shared + 4L * 32 * 256 <= apart, "the group saves at least one copy of w1: " + shared + " vs "
                + apart);

        for (Path model : models) {
            String stem = model.getFileName().toString().replace(".onnx", "");
            DistributionIT.Result compiled = ortex(npu("run", out.resolve(stem + "_ctx.onnx").toString(),
                    "--config", "ep.share_ep_contexts=1", "--shape", "x=3x32", "--json", "--output-dir",
                    dir.resolve("compiled-" + stem).toString()));
            assertEquals(0, compiled.exit(), compiled.err());
            assertTrue(compiled.out().contains("\"ExampleExecutionProvider\""), compiled.out());
            DistributionIT.Result source = DistributionIT.ortex("run", model.toString(), "--shape", "x=3x32",
                    "--output-dir", dir.resolve("source-" + stem).toString());
            assertEquals(0, source.exit(), source.err());
            assertNull(TensorComparison.difference(read(dir.resolve("source-" + stem + "/output_0.pb")),
                    read(dir.resolve("compiled-" + stem + "/output_0.pb")), 1e-5, 1e-6), stem);
        }
    }

    @Test
    void inspectShowsTheContextNodesTheBinaryAndTheVerdictsAndFailsWhenTheBinaryIsMissing(@TempDir Path dir)
            throws Exception {
        List<Path> models = twoModelsSharingALayer(dir.resolve("src"));
        Path out = dir.resolve("out");
        DistributionIT.Result group = ortex(npu("compile", models.get(0).toString(), models.get(1).toString(),
                "-o", out.toString(), "--share"));
        assertEquals(0, group.exit(), group.err());
        Path topic = out.resolve("topic_ctx.onnx");
        DistributionIT.Result text = ortex(example("inspect", topic.toString()));
        assertEquals(0, text.exit(), text.err());
        System.out.println("EpContextGroupIT: inspect\n" + text.out());
        String o = text.out();
        assertTrue(o.contains("opsets: {") && o.contains("input  'x' FLOAT [N, 32]")
                && o.contains("output 'probabilities' FLOAT [N, 10]"), o);
        assertTrue(o.contains("source ExampleExecutionProvider, embed_mode 0, secondary context"), o);
        assertTrue(o.contains("binary 'intent_ctx_shared.bin': " + Files.size(out.resolve("intent_ctx_shared.bin"))
                + " bytes, present, shared context binary of "), o);
        assertTrue(o.contains("compatibility string of ExampleExecutionProvider: "), o);
        assertTrue(o.lines().anyMatch(l -> l.startsWith("  on ExampleExecutionProvider NPU: SUPPORTED_")), o);
        assertTrue(o.contains("com.microsoft:EPContext"), o);

        DistributionIT.Result json = ortex(example("inspect", topic.toString(), "--json"));
        assertEquals(0, json.exit(), json.err());
        assertTrue(json.out().contains("\"present\" : true") && json.out().contains("\"embed_mode\" : 0")
                && json.out().contains("\"source\" : \"ExampleExecutionProvider\""), json.out());

        Files.move(out.resolve("intent_ctx_shared.bin"), dir.resolve("elsewhere.bin"));
        DistributionIT.Result missing = DistributionIT.ortex("inspect", topic.toString());
        assertEquals(1, missing.exit(), missing.out() + missing.err());
        assertTrue(missing.out().contains("binary 'intent_ctx_shared.bin': MISSING"), missing.out());
        assertEquals(1, missing.err().strip().lines().count(), missing.err());
        assertTrue(missing.err().startsWith("ortex: ") && missing.err().contains("which is missing"), missing.err());
        DistributionIT.Result run = ortex(npu("run", topic.toString(), "--shape", "x=1x32"));
        assertEquals(2, run.exit(), run.err());
        assertTrue(run.err().startsWith("ortex: ") && run.err().contains("does not exist"), run.err());

        DistributionIT.Result plain = DistributionIT.ortex("inspect", models.get(0).toString());
        assertEquals(0, plain.exit(), plain.err());
        assertTrue(plain.out().contains("EPContext nodes: 0") && plain.out().contains("nodes: 6"), plain.out());
        DistributionIT.Result absent = DistributionIT.ortex("inspect", dir.resolve("no\nsuch.onnx").toString());
        assertEquals(2, absent.exit());
        assertEquals(1, absent.err().strip().lines().count(), absent.err());
    }

    @Test
    void aGroupLeftOpenGetsItsBinaryWhenTheCommandEnds(@TempDir Path dir) throws Exception {
        List<Path> models = twoModelsSharingALayer(dir.resolve("src"));
        Path compiled = dir.resolve("out/intent_ctx.onnx");
        Files.createDirectories(compiled.getParent());
        DistributionIT.Result r = ortex(npu("compile", models.get(0).toString(), "-o", compiled.toString(),
                "--config", "ep.share_ep_contexts=1"));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("the sharing group stays open"), r.out());
        assertTrue(Files.isRegularFile(dir.resolve("out/intent_ctx_shared.bin")), "written as the runtime closed");
        DistributionIT.Result inspect = ortex(example("inspect", compiled.toString()));
        assertEquals(0, inspect.exit(), inspect.err());
        DistributionIT.Result run = ortex(npu("run", compiled.toString(), "--shape", "x=1x32"));
        assertEquals(0, run.exit(), run.err());
    }

    @Test
    void groupCompileRefusesBadInputWithOneLine(@TempDir Path dir) throws Exception {
        List<Path> models = twoModelsSharingALayer(dir.resolve("src"));
        Path copy = Files.createDirectories(dir.resolve("other")).resolve("intent.onnx");
        Files.copy(models.get(0), copy);
        for (List<String> args : List.of(
                List.of("compile", models.get(0).toString(), copy.toString(), "-o", dir.resolve("o").toString(),
                        "--share"),
                List.of("compile", models.get(0).toString(), dir.resolve("a\nb.onnx").toString(), "-o",
                        dir.resolve("o").toString(), "--share"),
                List.of("compile", models.get(0).toString(), "-o", models.get(1).toString(), "--share"),
                List.of("compile", models.get(0).toString(), models.get(1).toString(), "-o",
                        dir.resolve("o").toString()),
                List.of("compile", models.get(0).toString(), "-o", dir.resolve("o").toString(), "--share",
                        "--config", "ep.stop_share_ep_contexts=1"),
                List.of("compile", models.get(0).toString(), "-o", dir.resolve("o.onnx").toString(), "--share"))) {
            DistributionIT.Result r = DistributionIT.ortex(args.toArray(new String[0]));
            assertEquals(2, r.exit(), args + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().startsWith("ortex: "), r.err());
        }
        assertFalse(Files.exists(dir.resolve("o")) || Files.exists(dir.resolve("o.onnx")), "nothing written");
    }

    @Test
    void everyVerbPrintsItsUsageWithHelp() throws Exception {
        for (String verb : List.of("run", "test", "compile", "inspect", "devices", "eps", "demo")) {
            DistributionIT.Result r = DistributionIT.ortexOnModulePath(verb, "--help");
            assertEquals(0, r.exit(), verb + ": " + r.err());
            assertTrue(r.out().startsWith("usage: ortex " + verb), r.out());
            assertEquals(r.out(), DistributionIT.ortexOnModulePath("help", verb).out(), verb);
        }
        DistributionIT.Result r = DistributionIT.ortex("compile", "--help");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("usage: ortex compile MODEL -o OUT") && r.out().contains("--share"), r.out());
    }

    private static Tensor read(Path file) throws Exception {
        return TensorCodec.fromProto(Onnx.TensorProto.parseFrom(Files.readAllBytes(file)));
    }
}
