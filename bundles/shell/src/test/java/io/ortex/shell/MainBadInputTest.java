package io.ortex.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.shell.internal.TensorFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input gives exit status 2 and exactly one line on standard error, starting with {@code ortex: } and naming the
 * culprit, with no stack trace; each case must finish within 30 seconds.
 */
class MainBadInputTest {
    @TempDir
    Path dir;

    /** Runs the command line and checks the one-line error that names {@code culprit}. */
    private static Cli assertError(int status, String culprit, String... args) {
        Cli r = Cli.run(args);
        assertEquals(status, r.status(), r.toString());
        assertEquals(1, r.errLines().size(), "exactly one line on stderr: " + r);
        String line = r.errLines().get(0);
        assertTrue(line.startsWith("ortex: "), r.toString());
        assertTrue(line.contains(culprit), "'" + culprit + "' not named: " + r);
        assertFalse(line.contains("internal error") || line.contains("Exception"), r.toString());
        assertEquals("", r.out(), r.toString());
        return r;
    }

    private static Cli assertBadInput(String culprit, String... args) {
        return assertError(2, culprit, args);
    }

    private Path good() throws IOException {
        return Models.addMulRelu().write(dir.resolve("good.onnx"));
    }

    @Test
    void missingModelFile() {
        assertBadInput("nope.onnx", "run", dir.resolve("nope.onnx").toString());
    }

    @Test
    void folderAsModel() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("a_folder"));
        assertBadInput("a_folder", "run", folder.toString());
    }

    @Test
    void randomBytes() throws IOException {
        byte[] junk = new byte[4096];
        new Random(1234).nextBytes(junk);
        Path p = Files.write(dir.resolve("junk.onnx"), junk);
        assertBadInput("junk.onnx", "run", p.toString());
    }

    @Test
    void truncatedModel() throws IOException {
        byte[] bytes = Models.addMulRelu().bytes();
        Path p = Files.write(dir.resolve("cut.onnx"), Arrays.copyOf(bytes, bytes.length / 2));
        assertBadInput("cut.onnx", "run", p.toString());
    }

    @Test
    void emptyFile() throws IOException {
        Path p = Files.write(dir.resolve("empty.onnx"), new byte[0]);
        assertBadInput("empty.onnx", "run", p.toString());
    }

    @Test
    void irVersion99() throws IOException {
        Path p = Models.addMulRelu().ir(99).write(dir.resolve("ir.onnx"));
        assertBadInput("IR version 99", "run", p.toString());
    }

    @Test
    void opset99() throws IOException {
        Path p = Models.addMulRelu().opset(99).write(dir.resolve("opset.onnx"));
        assertBadInput("opset 99", "run", p.toString());
    }

    @Test
    void cycle() throws IOException {
        Path p = Models.builder()
                .input("x", 2)
                .node("Add", "loop_a", List.of("x", "c"), List.of("b"))
                .node("Relu", "loop_b", List.of("b"), List.of("c"))
                .output("c", 2)
                .write(dir.resolve("cycle.onnx"));
        Cli r = assertBadInput("cycle", "run", p.toString());
        assertTrue(r.err().contains("loop_a") && r.err().contains("loop_b"), r.toString());
    }

    @Test
    void valueNobodyProduces() throws IOException {
        Path p = Models.builder()
                .input("x", 2)
                .node("Add", "reader", List.of("x", "ghost"), List.of("out"))
                .output("out", 2)
                .write(dir.resolve("ghost.onnx"));
        assertBadInput("'ghost'", "run", p.toString());
    }

    @Test
    void initializerOneByteShort() throws IOException {
        Path p = Models.builder()
                .input("x", 3)
                .rawInitializer("short_init", ElementType.FLOAT, new long[] {3}, new byte[11])
                .node("Add", "add", List.of("x", "short_init"), List.of("out"))
                .output("out", 3)
                .write(dir.resolve("short.onnx"));
        assertBadInput("short_init", "run", p.toString());
    }

    @Test
    void initializerDimsTooLargeToAllocate() throws IOException {
        Path p = Models.builder()
                .input("x", 3)
                .rawInitializer("huge_init", ElementType.FLOAT, new long[] {1 << 20, 1 << 20, 1 << 20}, new byte[0])
                .node("Add", "add", List.of("x", "huge_init"), List.of("out"))
                .output("out", 3)
                .write(dir.resolve("huge.onnx"));
        assertBadInput("huge_init", "run", p.toString());
    }

    @Test
    void inputDimsTooLargeToAllocate() throws IOException {
        Path p = Models.builder()
                .input("huge_in", 1 << 20, 1 << 20)
                .node("Relu", "relu", List.of("huge_in"), List.of("out"))
                .output("out", 1 << 20, 1 << 20)
                .write(dir.resolve("huge_in.onnx"));
        assertBadInput("huge_in", "run", p.toString());
    }

    @Test
    void unknownVerb() {
        assertBadInput("frobnicate", "frobnicate");
    }

    @Test
    void unknownOption() throws IOException {
        assertBadInput("--frob", "run", good().toString(), "--frob");
        assertBadInput("--frob", "eps", "--frob");
    }

    @Test
    void optionWithoutItsValue() throws IOException {
        assertBadInput("--repeat", "run", good().toString(), "--repeat");
    }

    @Test
    void repeatZero() throws IOException {
        assertBadInput("--repeat", "run", good().toString(), "--repeat", "0");
        assertBadInput("--repeat", "run", good().toString(), "--repeat", "many");
    }

    @Test
    void threadCountOutOfRange() throws IOException {
        assertBadInput("threads", "run", good().toString(), "--threads", "40000");
        assertBadInput("--threads", "run", good().toString(), "--threads", "-2");
    }

    @Test
    void inputForAnUnknownName() throws IOException {
        Path t = dir.resolve("t.pb");
        TensorFiles.write(Tensor.ofFloats(new float[6], 2, 3), "t", t);
        assertBadInput("'nobody'", "run", good().toString(), "--input", "nobody=" + t);
    }

    @Test
    void shapeWithABadShape() throws IOException {
        Path m = Models.symbolic().write(dir.resolve("sym.onnx"));
        assertBadInput("--shape", "run", m.toString(), "--shape", "x=3xA");
        assertBadInput("--shape", "run", m.toString(), "--shape", "x=3x");
        assertBadInput("--shape", "run", m.toString(), "--shape", "x=-3x4");
        assertBadInput("--shape", "run", m.toString(), "--shape", "x");
    }

    @Test
    void shapeForAnUnknownInput() throws IOException {
        Path m = Models.symbolic().write(dir.resolve("sym.onnx"));
        assertBadInput("'nobody'", "run", m.toString(), "--shape", "nobody=3x4");
    }

    @Test
    void shapeThatDoesNotFitTheDeclaredOne() throws IOException {
        Path m = Models.symbolic().write(dir.resolve("sym.onnx"));
        assertBadInput("'x'", "run", m.toString(), "--shape", "x=3x5");
        assertBadInput("'x'", "run", m.toString(), "--shape", "x=3x4x1");
    }

    @Test
    void missingTensorFile() throws IOException {
        assertBadInput("missing.pb", "run", good().toString(), "--input", "x=" + dir.resolve("missing.pb"));
    }

    @Test
    void tensorFileThatIsNotATensor() throws IOException {
        Path junk = Files.write(dir.resolve("junk.pb"), new byte[] {(byte) 0xff, 0x01, 0x02});
        assertBadInput("junk.pb", "run", good().toString(), "--input", "x=" + junk);
    }

    @Test
    void tensorFileOfTheWrongShape() throws IOException {
        Path t = dir.resolve("wrong.pb");
        TensorFiles.write(Tensor.ofFloats(new float[4], 2, 2), "x", t);
        assertBadInput("'x'", "run", good().toString(), "--input", "x=" + t, "--random-inputs");
    }

    @Test
    void inputsFolderThatIsNotAFolder() throws IOException {
        assertBadInput("no_such_dir", "run", good().toString(), "--inputs", dir.resolve("no_such_dir").toString());
    }

    @Test
    void runWithoutAModel() {
        assertBadInput("MODEL", "run");
    }

    @Test
    void testOnAPathWithoutCases() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("no_cases"));
        assertBadInput("no_cases", "test", empty.toString());
        assertBadInput("absent", "test", dir.resolve("absent").toString());
    }

    @Test
    void unsupportedOpGivesOneLineAndAFailureStatus() throws IOException {
        Path p = Models.builder()
                .input("x", 2)
                .node("Frobnicate", "strange_node", List.of("x"), List.of("out"))
                .output("out", 2)
                .write(dir.resolve("unsupported.onnx"));
        Cli r = Cli.run("run", p.toString());
        assertNotEquals(0, r.status(), r.toString());
        assertEquals(1, r.errLines().size(), r.toString());
        assertTrue(r.err().startsWith("ortex: ") && r.err().contains("Frobnicate")
                && r.err().contains("strange_node"), r.toString());
    }

    @Test
    void verboseAddsTheStackTrace() throws IOException {
        Cli r = Cli.run("run", dir.resolve("nope.onnx").toString(), "--verbose");
        assertEquals(2, r.status(), r.toString());
        assertTrue(r.errLines().get(0).startsWith("ortex: "), r.toString());
        assertTrue(r.errLines().size() > 1 && r.err().contains("\tat "), r.toString());
    }

    @Test
    void anInputLeftOutWhenOthersAreGivenIsAnError() throws IOException {
        Path x = dir.resolve("x.pb");
        TensorFiles.write(Tensor.ofFloats(new float[6], 2, 3), "x", x);
        assertBadInput("'y' is not given", "run", good().toString(), "--input", "x=" + x);
    }

    @Test
    void anInputsFolderWithNoneOfTheModelsInputsIsAnError() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty_set"));
        Files.write(empty.resolve("input_7.pb"), new byte[0]);
        assertBadInput("holds none of the model's inputs", "run", good().toString(), "--inputs", empty.toString());
        Path half = Files.createDirectories(dir.resolve("half_set"));
        TensorFiles.write(Tensor.ofFloats(new float[6], 2, 3), "x", half.resolve("input_0.pb"));
        assertBadInput("'y' is not given", "run", good().toString(), "--inputs", half.toString());
    }

    @Test
    void aShapeForAnInputGivenFromAFileIsAnError() throws IOException {
        Path x = dir.resolve("x.pb");
        TensorFiles.write(Tensor.ofFloats(new float[6], 2, 3), "x", x);
        assertBadInput("--shape x", "run", good().toString(), "--input", "x=" + x, "--random-inputs",
                "--shape", "x=2x3");
    }

    @Test
    void aDeclaredNegativeDimensionIsBadInput() throws IOException {
        // the builder reads a negative dimension as symbolic: write the -5 into the message itself
        io.ortex.onnx.proto.Onnx.ModelProto.Builder model = Models.builder().input("x", 5)
                .node("Relu", "r", List.of("x"), List.of("out")).output("out", 2).proto().toBuilder();
        model.getGraphBuilder().getInputBuilder(0).getTypeBuilder().getTensorTypeBuilder().getShapeBuilder()
                .getDimBuilder(0).setDimValue(-5);
        Path m = Files.write(dir.resolve("neg.onnx"), model.build().toByteArray());
        assertBadInput("-5", "run", m.toString());
    }

    @Test
    void aGraphOutputListedTwiceIsBadInput() throws IOException {
        Path m = Models.builder().input("x", 2).node("Relu", "r", List.of("x"), List.of("out"))
                .output("out", 2).output("out", 2).write(dir.resolve("twice.onnx"));
        assertBadInput("graph output 'out' is listed twice", "run", m.toString());
    }

    @Test
    void registeringWhatIsNotAnEpJarSaysWhy() throws IOException {
        assertBadInput("does not exist", "run", good().toString(), "--register",
                "lib=" + dir.resolve("absent.jar"));
        Path notZip = Files.write(dir.resolve("text.jar"),
                "not a zip".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertBadInput("is not a jar (zip) file", "run", good().toString(), "--register", "lib=" + notZip);
        Path folder = Files.createDirectories(dir.resolve("folder.jar"));
        assertBadInput("is a folder", "run", good().toString(), "--register", "lib=" + folder);
    }

    @Test
    void namesFromTheModelAreEscapedAndTheErrorStaysOneLine() throws IOException {
        String hostile = "evil\nortex: forged line\u001b[31m\u0000\r'";
        Path p = Models.builder()
                .input("x", 2)
                .node("Frobnicate", hostile, List.of("x"), List.of("out"))
                .output("out", 2)
                .write(dir.resolve("hostile.onnx"));
        Cli r = Cli.run("run", p.toString());
        assertEquals(1, r.errLines().size(), r.toString());
        String line = r.errLines().get(0);
        assertTrue(line.contains("'evil\\nortex: forged line\\x1b[31m\\x00\\r\\''"), line);
        assertFalse(r.err().chars().anyMatch(c -> c < 0x20 && c != '\n'), "no control character: " + r);
    }

    @Test
    void aModelGivenAsAnInputTensorPrintsNoControlCharacters() throws IOException {
        Path m = good();
        Cli r = Cli.run("run", m.toString(), "--input", "x=" + m, "--random-inputs");
        assertEquals(2, r.status(), r.toString());
        assertEquals(1, r.errLines().size(), r.toString());
        assertFalse(r.err().chars().anyMatch(c -> c < 0x20 && c != '\n'), "no control character: " + r);
    }

    @Test
    void anOutputTooLargeForMemoryFailsNamingTheNodeNotAsAnInternalError() throws IOException {
        // the probe's ConstantOfShape [40000, 40000]: 6.4 GB of float32 in one array
        Path m = Models.builder().output("y", 40_000, 40_000).longs("shape", new long[] {40_000, 40_000}, 2)
                .node("ConstantOfShape", "huge", List.of("shape"), List.of("y")).write(dir.resolve("huge.onnx"));
        Cli r = Cli.run("run", m.toString(), "--config", "ortex.limits.run_bytes=1000000000");
        assertError(1, "node 'huge' (ConstantOfShape)", "run", m.toString(), "--config",
                "ortex.limits.run_bytes=1000000000");
        assertTrue(r.err().contains("ortex.limits.run_bytes"), r.toString());
    }
}
