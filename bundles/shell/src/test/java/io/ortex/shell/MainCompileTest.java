package io.ortex.shell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.shell.internal.MlpModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ortex compile}: cross-compiling for the example EP's virtual NPU, running the compiled model with the same
 * EP options, the flags, and failures that leave nothing behind.
 */
class MainCompileTest {
    private static final String[] NPU = {"--env", "allow_virtual_devices=1", "--policy", "PREFER_NPU"};

    @TempDir
    Path dir;

    private static String[] args(String[] head, String... tail) {
        return Stream.concat(Stream.of(head), Stream.of(tail)).toArray(String[]::new);
    }

    private Path mlp() throws IOException {
        Path p = dir.resolve("mlp.onnx");
        Files.write(p, MlpModel.build(16, 32, 5, 11));
        return p;
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aCrossCompiledModelRunsOnTheVirtualNpuWithTheSourcesOutputs() throws IOException {
        Path model = mlp();
        Path out = dir.resolve("mlp_ctx.onnx");
        Cli c = Cli.run(args(new String[] {"compile", model.toString(), "-o", out.toString()}, NPU));
        assertEquals(0, c.status(), c.toString());
        assertTrue(c.out().contains("ExampleExecutionProvider: 1 EPContext node"), c.out());
        assertTrue(Files.isRegularFile(dir.resolve("mlp_ctx_ExampleExecutionProvider.bin")));
        assertFalse(c.err().contains("partitions"), "no progress bar when stderr is not a terminal: " + c.err());

        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        Cli source = Cli.run(args(new String[] {"run", model.toString(), "--output-dir", a.toString()}, NPU));
        Cli compiled = Cli.run(args(new String[] {"run", out.toString(), "--output-dir", b.toString(), "--json"},
                NPU));
        assertEquals(0, source.status(), source.toString());
        assertEquals(0, compiled.status(), compiled.toString());
        assertTrue(compiled.out().contains("\"ExampleExecutionProvider\""), compiled.out());
        assertTrue(compiled.out().contains("EPContext"), compiled.out());
        assertArrayEquals(Files.readAllBytes(a.resolve("output_0.pb")), Files.readAllBytes(b.resolve("output_0.pb")));
    }

    @Test
    void embeddedPayloadsWriteOneFile() throws IOException {
        Path model = mlp();
        Cli c = Cli.run(args(new String[] {"compile", model.toString(), "-o", dir.resolve("e.onnx").toString(),
                "--embed"}, NPU));
        assertEquals(0, c.status(), c.toString());
        assertEquals(List.of("e.onnx", "mlp.onnx"), files());
    }

    @Test
    void flagsRefuseAnExistingOutputAndAModelNothingCompiles() throws IOException {
        Path model = mlp();
        Path out = dir.resolve("out.onnx");
        Files.write(out, new byte[] {7});
        Cli c = Cli.run(args(new String[] {"compile", model.toString(), "-o", out.toString(), "--flags",
                "error-if-output-exists"}, NPU));
        assertEquals(1, c.status(), c.toString());
        assertTrue(c.err().startsWith("ortex: ") && c.err().contains("exists already"), c.err());
        assertArrayEquals(new byte[] {7}, Files.readAllBytes(out));

        Path cpu = dir.resolve("cpu.onnx");
        c = Cli.run("compile", model.toString(), "-o", cpu.toString(), "--flags", "error-if-no-nodes-compiled");
        assertEquals(1, c.status(), c.toString());
        assertTrue(c.err().contains("Unable to compile any nodes"), c.err());
        assertFalse(Files.exists(cpu), "a failed compile leaves nothing behind");
        assertEquals(List.of("mlp.onnx", "out.onnx"), files());

        c = Cli.run("compile", model.toString(), "-o", cpu.toString(), "--flags", "nope");
        assertEquals(2, c.status(), c.toString());
        c = Cli.run("compile", model.toString());
        assertEquals(2, c.status(), c.toString());
        assertTrue(c.err().contains("-o OUT"), c.err());
    }

    @Test
    void compilingACompiledModelIsBadInput() throws IOException {
        Path model = mlp();
        Path once = dir.resolve("once.onnx");
        assertEquals(0, Cli.run(args(new String[] {"compile", model.toString(), "-o", once.toString(), "--embed"},
                NPU)).status());
        Cli c = Cli.run(args(new String[] {"compile", once.toString(), "-o", dir.resolve("twice.onnx").toString()},
                NPU));
        assertEquals(2, c.status(), c.toString());
        assertTrue(c.err().contains("already compiled"), c.err());
        assertFalse(Files.exists(dir.resolve("twice.onnx")));
    }

    @Test
    void anOutputThatIsTheSourceModelIsRefusedAndTheSourceKept() throws IOException {
        Path model = mlp();
        byte[] source = Files.readAllBytes(model);
        Path sub = Files.createDirectories(dir.resolve("sub"));
        Path link = Files.createSymbolicLink(dir.resolve("link.onnx"), model);
        for (String out : List.of(model.toString(), sub + "/../mlp.onnx", link.toString())) {
            Cli c = Cli.run(args(new String[] {"compile", model.toString(), "-o", out}, NPU));
            assertEquals(2, c.status(), out + ": " + c);
            assertEquals(1, c.errLines().size(), c.toString());
            assertTrue(c.err().startsWith("ortex: ") && c.err().contains("is the source file"), c.err());
            assertArrayEquals(source, Files.readAllBytes(model), "the source model is untouched");
            assertTrue(Files.isSymbolicLink(link));
        }
        assertEquals(List.of("link.onnx", "mlp.onnx", "sub"), files());
    }

    @Test
    void errorIfOutputExistsCoversTheContextBinaryBesideTheModel() throws IOException {
        Path model = mlp();
        Path out = dir.resolve("out.onnx");
        Path binary = Files.write(dir.resolve("out_ExampleExecutionProvider.bin"), new byte[] {9});
        Cli c = Cli.run(args(new String[] {"compile", model.toString(), "-o", out.toString(), "--flags",
                "error-if-output-exists"}, NPU));
        assertEquals(1, c.status(), c.toString());
        assertTrue(c.err().contains("out_ExampleExecutionProvider.bin exists already"), c.err());
        assertArrayEquals(new byte[] {9}, Files.readAllBytes(binary), "the existing binary is kept");
        assertFalse(Files.exists(out), "no model pointing at a foreign binary is written");
        assertEquals(List.of("mlp.onnx", "out_ExampleExecutionProvider.bin"), files());
    }
}
