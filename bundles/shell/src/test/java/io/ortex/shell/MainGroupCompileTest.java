package io.ortex.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.TensorComparison;
import io.ortex.onnx.proto.Onnx;
import io.ortex.shell.internal.MlpModel;
import io.ortex.shell.internal.Usage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ortex compile MODEL... -o DIR --share}, {@code ortex inspect} and {@code --help} in the test's JVM, with the
 * example EP's virtual NPU: the group's files and what sharing saved, the compiled models reproducing their sources,
 * the inspection of a compiled model, and every verb's usage.
 */
class MainGroupCompileTest {
    private static final List<String> NPU = List.of("--env", "allow_virtual_devices=1", "--policy", "PREFER_NPU");

    @TempDir
    Path dir;

    private static Cli npu(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(NPU);
        return Cli.run(all.toArray(new String[0]));
    }

    private List<Path> models() throws IOException {
        return List.of(Files.write(dir.resolve("intent.onnx"), MlpModel.build(16, 128, 4, 7, 1)),
                Files.write(dir.resolve("topic.onnx"), MlpModel.build(16, 128, 4, 7, 2)));
    }

    @Test
    void aGroupCompilesIntoOneSharedBinaryAndEachModelGivesItsSourcesOutputs() throws IOException {
        List<Path> m = models();
        Path out = dir.resolve("out");
        Cli c = npu("compile", m.get(0).toString(), m.get(1).toString(), "-o", out.toString(), "--share");
        assertEquals(0, c.status(), c.toString());
        Path bin = out.resolve("intent_ctx_shared.bin");
        assertTrue(Files.isRegularFile(bin) && c.out().contains("wrote " + bin + " (" + Files.size(bin) + " bytes)"),
                c.toString());
        assertTrue(c.out().contains("sharing saved "), c.out());
        for (int i = 0; i < 2; i++) {
            String stem = i == 0 ? "intent" : "topic";
            Cli compiled = npu("run", out.resolve(stem + "_ctx.onnx").toString(), "--config", "ep.share_ep_contexts=1",
                    "--shape", "x=2x16", "--output-dir", dir.resolve("c" + i).toString());
            assertEquals(0, compiled.status(), compiled.toString());
            Cli source = Cli.run("run", m.get(i).toString(), "--shape", "x=2x16", "--output-dir",
                    dir.resolve("s" + i).toString());
            assertEquals(0, source.status(), source.toString());
            assertNull(TensorComparison.difference(tensor(dir.resolve("s" + i + "/output_0.pb")),
                    tensor(dir.resolve("c" + i + "/output_0.pb")), 1e-5, 1e-6), stem);
        }
        Cli inspect = Cli.run("inspect", out.resolve("intent_ctx.onnx").toString(), "--env",
                "allow_virtual_devices=1");
        assertEquals(0, inspect.status(), inspect.toString());
        assertTrue(inspect.out().contains("embed_mode 0, main context") && inspect.out().contains("present"),
                inspect.out());
        System.out.println(inspect.out());
        Files.delete(bin);
        Cli missing = Cli.run("inspect", out.resolve("topic_ctx.onnx").toString());
        assertEquals(1, missing.status(), missing.toString());
        assertTrue(missing.out().contains("MISSING") && missing.errLines().size() == 1, missing.toString());
    }

    @Test
    void aGroupNoEpCompiledWritesItsModelsAndNoEmptySharedBinary() throws IOException {
        List<Path> m = models();
        Path out = dir.resolve("plain");
        Cli c = Cli.run("compile", m.get(0).toString(), m.get(1).toString(), "-o", out.toString(), "--share");
        assertEquals(0, c.status(), c.toString());
        assertTrue(c.out().contains("no EP compiled a node"), c.out());
        try (var files = Files.list(out)) {
            assertEquals(List.of("intent_ctx.onnx", "topic_ctx.onnx"), files.map(f -> f.getFileName().toString())
                    .sorted().toList());
        }
    }

    @Test
    void aGroupThatFailsPartWayLeavesTheOutputFolderAsItWas() throws IOException {
        List<Path> m = models();
        Path out = dir.resolve("out");
        assertEquals(0, npu("compile", m.get(1).toString(), "-o", out.toString(), "--share").status());
        List<String> before = listing(out);
        assertEquals(List.of("topic_ctx.onnx", "topic_ctx_shared.bin"), before);
        byte[] topicBefore = Files.readAllBytes(out.resolve("topic_ctx.onnx"));
        byte[] whole = Files.readAllBytes(m.get(1));
        Path broken = Files.write(dir.resolve("broken.onnx"), java.util.Arrays.copyOf(whole, whole.length / 2));

        Cli c = npu("compile", m.get(0).toString(), broken.toString(), "-o", out.toString(), "--share");
        assertEquals(2, c.status(), c.toString());
        assertTrue(c.err().contains("broken.onnx") && c.err().contains("truncated"), c.toString());
        assertEquals(before, listing(out), "the failed group wrote nothing, and left no folder behind");
        assertTrue(java.util.Arrays.equals(topicBefore, Files.readAllBytes(out.resolve("topic_ctx.onnx"))),
                "what an earlier group compiled is untouched");
    }

    private static List<String> listing(Path folder) throws IOException {
        try (var files = Files.list(folder)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private static Tensor tensor(Path file) throws IOException {
        return TensorCodec.fromProto(Onnx.TensorProto.parseFrom(Files.readAllBytes(file)));
    }

    @Test
    void everyVerbPrintsItsUsage() {
        for (String verb : List.of("run", "test", "compile", "inspect", "devices", "eps", "demo", "shell")) {
            Cli c = Cli.run(verb, "--help");
            assertEquals(0, c.status(), c.toString());
            assertTrue(c.out().startsWith("usage: ortex " + verb), c.out());
            assertEquals(c.out(), Cli.run("help", verb).out());
        }
        assertTrue(Cli.run("compile", "--help").out().startsWith("usage: ortex compile " + Usage.COMPILE));
        Cli unknown = Cli.run("help", "frob\nnicate");
        assertEquals(2, unknown.status());
        assertEquals(List.of("ortex: unknown verb 'frob\\nnicate'; try: ortex help"), unknown.errLines());
    }
}
