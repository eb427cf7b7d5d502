package io.ortex.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.shell.internal.TensorFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ortex test} on ONNX backend test-case folders made here. */
class MainTestVerbTest {
    private static final float[] X = {1, 2, 3, -4, -5, -6};
    private static final float[] Y = {2, 2, 2, -1, 1, -3};
    private static final float[] OUT = {4, 0, 7, 3, 0, 16.5f};

    @TempDir
    Path dir;

    /** Writes a case of {@link Models#addMulRelu()} whose expected output is {@code expected}. */
    private Path writeCase(String name, float[] expected) throws IOException {
        Path c = dir.resolve("cases").resolve(name);
        Models.addMulRelu().write(c.resolve("model.onnx"));
        Path set = Files.createDirectories(c.resolve("test_data_set_0"));
        TensorFiles.write(Tensor.ofFloats(X, 2, 3), "x", set.resolve("input_0.pb"));
        TensorFiles.write(Tensor.ofFloats(Y, 2, 3), "y", set.resolve("input_1.pb"));
        TensorFiles.write(Tensor.ofFloats(expected, 2, 3), "out", set.resolve("output_0.pb"));
        return c;
    }

    @Test
    void onePassingAndOneFailingCase() throws IOException {
        writeCase("test_good", OUT);
        float[] wrong = OUT.clone();
        wrong[2] += 0.5f;
        writeCase("test_wrong", wrong);
        Path report = dir.resolve("report.txt");
        Cli r = Cli.run("test", dir.resolve("cases").toString(), "--report", report.toString());
        assertEquals(1, r.status(), r.toString());
        List<String> lines = r.outLines();
        assertEquals(3, lines.size(), r.toString());
        assertEquals("PASS test_good", lines.get(0));
        assertTrue(lines.get(1).startsWith("FAIL test_wrong: output 'out'"), r.toString());
        assertEquals("1 passed, 1 failed", lines.get(2));
        assertEquals(lines, Files.readAllLines(report));
    }

    @Test
    void allPassingExitsZero() throws IOException {
        Path a = writeCase("test_a", OUT);
        writeCase("test_b", OUT);
        Cli r = Cli.run("test", dir.resolve("cases").toString());
        assertEquals(0, r.status(), r.toString());
        assertEquals(List.of("PASS test_a", "PASS test_b", "2 passed, 0 failed"), r.outLines());
        Cli single = Cli.run("test", a.toString());
        assertEquals(0, single.status(), single.toString());
        assertEquals(List.of("PASS test_a", "1 passed, 0 failed"), single.outLines());
    }

    @Test
    void toleranceDecidesCloseResults() throws IOException {
        float[] close = OUT.clone();
        close[0] += 0.01f;
        Path c = writeCase("test_close", close);
        Cli strict = Cli.run("test", c.toString());
        assertEquals(1, strict.status(), strict.toString());
        Cli loose = Cli.run("test", c.toString(), "--atol", "0.05");
        assertEquals(0, loose.status(), loose.toString());
        assertEquals("1 passed, 0 failed", loose.outLines().get(1));
    }

    @Test
    void aCaseThatCannotRunIsAnError() throws IOException {
        writeCase("test_good", OUT);
        Path broken = dir.resolve("cases").resolve("test_broken");
        Files.createDirectories(broken);
        Files.write(broken.resolve("model.onnx"), new byte[] {1, 2, 3});
        Cli r = Cli.run("test", dir.resolve("cases").toString());
        assertEquals(1, r.status(), r.toString());
        assertTrue(r.outLines().get(0).startsWith("ERROR test_broken: "), r.toString());
        assertEquals("PASS test_good", r.outLines().get(1));
        assertEquals("1 passed, 1 failed", r.outLines().get(2));
    }

    @Test
    void aCaseWithAWrongOutputShapeFails() throws IOException {
        Path c = dir.resolve("cases").resolve("test_shape");
        Models.addMulRelu().write(c.resolve("model.onnx"));
        Path set = Files.createDirectories(c.resolve("test_data_set_0"));
        TensorFiles.write(Tensor.ofFloats(X, 2, 3), "x", set.resolve("input_0.pb"));
        TensorFiles.write(Tensor.ofFloats(Y, 2, 3), "y", set.resolve("input_1.pb"));
        TensorFiles.write(Tensor.ofFloats(OUT, 3, 2), "out", set.resolve("output_0.pb"));
        Cli r = Cli.run("test", c.toString());
        assertEquals(1, r.status(), r.toString());
        assertTrue(r.outLines().get(0).startsWith("FAIL test_shape"), r.toString());
    }

    @Test
    void aCaseWithoutDataSetsIsAnErrorNotAPass() throws IOException {
        Path c = dir.resolve("test_empty");
        Models.addMulRelu().write(c.resolve("model.onnx"));
        Cli r = Cli.run("test", c.toString());
        assertEquals(1, r.status(), r.toString());
        assertEquals(List.of("ERROR test_empty: no test_data_set_N folder, nothing to compare", "0 passed, 1 failed"),
                r.outLines());
    }

    @Test
    void everyDataSetIsChecked() throws IOException {
        Path c = writeCase("test_two_sets", OUT);
        Path second = Files.createDirectories(c.resolve("test_data_set_1"));
        TensorFiles.write(Tensor.ofFloats(X, 2, 3), "x", second.resolve("input_0.pb"));
        TensorFiles.write(Tensor.ofFloats(X, 2, 3), "y", second.resolve("input_1.pb"));
        TensorFiles.write(Tensor.ofFloats(OUT, 2, 3), "out", second.resolve("output_0.pb"));
        Cli r = Cli.run("test", c.toString());
        assertEquals(1, r.status(), r.toString());
        assertTrue(r.outLines().get(0).startsWith("FAIL test_two_sets: output 'out'"), r.toString());
    }
}
