package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.shell.internal.ConformanceReport.Reason;
import io.ortex.shell.internal.TestCommand.CaseResult;
import io.ortex.shell.internal.TestCommand.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConformanceReportTest {
    private static final String NI = "NOT_IMPLEMENTED";

    private static CaseResult error(String type, String message) {
        return new CaseResult("c", Outcome.ERROR, message, type);
    }

    @Test
    void classifiesByExceptionTypeAndMessage() {
        assertNull(ConformanceReport.classify(new CaseResult("c", Outcome.PASS, "")));
        assertEquals(Reason.WRONG_RESULT, ConformanceReport.classify(
                new CaseResult("c", Outcome.FAIL, "output 'y': element 3 differs")));
        assertEquals(Reason.OP_UNSUPPORTED, ConformanceReport.classify(error(NI,
                "node 'n' (op Foo, opset 21) is not supported by any EP of this session (CPU)")));
        assertEquals(Reason.OP_UNSUPPORTED, ConformanceReport.classify(error(NI,
                "node 'n' (Foo) has no CPU kernel at opset 7")));
        assertEquals(Reason.ATTRIBUTE_UNSUPPORTED, ConformanceReport.classify(error(NI,
                "node 'n': attribute 'mode' value 'x' is not supported")));
        assertEquals(Reason.TYPE_UNSUPPORTED, ConformanceReport.classify(error(NI,
                "node 'n': MatMul is not implemented for type INT8")));
        assertEquals(Reason.TYPE_UNSUPPORTED, ConformanceReport.classify(error(NI,
                "cast to float8e4m3fn is not supported")));
        assertEquals(Reason.OTHER, ConformanceReport.classify(error(NI, "cubic mode supports only 4-D input")));
        // the same words in another exception are not an unsupported feature
        assertEquals(Reason.OTHER, ConformanceReport.classify(error("INVALID_GRAPH",
                "attribute 'axis' is out of range")));
    }

    @Test
    void aNotImplementedCauseSurvivesAWrapper() {
        Exception inner = new io.ortex.api.NotImplementedException("tensor 'x' has element type int4");
        Exception outer = new io.ortex.api.InvalidArgumentException(io.ortex.api.ErrorCode.INVALID_ARGUMENT,
                "tensor file f: " + inner.getMessage(), inner);
        assertEquals(NI, TestCommand.errorKind(outer));
        assertEquals("INVALID_ARGUMENT", TestCommand.errorKind(
                new io.ortex.api.InvalidArgumentException("bad input")));
        assertEquals("IllegalStateException", TestCommand.errorKind(new IllegalStateException("x")));
    }

    @Test
    void writesTheSummaryAndEveryCaseThatDoesNotPass() {
        ConformanceReport report = new ConformanceReport(Set.of("Relu", "Add"),
                Map.of("test_relu", List.of("Relu"), "test_add", List.of("Add"), "test_foo", List.of("Foo", "Add")));
        String md = report.markdown(List.of(
                new CaseResult("test_relu", Outcome.PASS, ""),
                new CaseResult("test_add", Outcome.FAIL, "output 'z': a|b differs"),
                new CaseResult("test_foo", Outcome.ERROR, "node 'f' (op Foo, opset 21) is not supported by any EP",
                        NI)));
        assertTrue(md.contains("| all | 1 | 2 | 3 | 33.3% |"), md);
        assertTrue(md.contains("| core ops only | 1 | 1 | 2 | 50.0% |"), md);
        assertTrue(md.contains("| test_add | FAIL | wrong result | output 'z': a\\|b differs |"), md);
        assertTrue(md.contains("| test_foo | ERROR | op unsupported | node 'f' (op Foo, opset 21)"), md);
        assertFalse(md.contains("| test_relu |"), md);
    }

    @Test
    void leavesOutTheCoreRowWithoutTheCoreOpList(@TempDir Path dir) throws IOException {
        Path cases = Files.createDirectories(dir.resolve("onnx-node"));
        Files.writeString(cases.resolve("INDEX.tsv"), "case\top_types\ntest_relu\tRelu\n");
        String without = ConformanceReport.forPaths(List.of(cases)).markdown(List.of(
                new CaseResult("test_relu", Outcome.PASS, "")));
        assertFalse(without.contains("core ops only"), without);
        assertTrue(without.contains("None."), without);
        Files.writeString(dir.resolve("CORE_OPS.txt"), "Relu\n");
        String with = ConformanceReport.forPaths(List.of(cases)).markdown(List.of(
                new CaseResult("test_relu", Outcome.PASS, "")));
        assertTrue(with.contains("| core ops only | 1 | 0 | 1 | 100.0% |"), with);
    }
}
