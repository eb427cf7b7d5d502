package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.SessionOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Runs ONNX's backend node tests from {@code ../shared/conformance/onnx-node} through the same code as
 * {@code ortex test}, writes every case's result to {@code target/conformance-report.txt}, and fails when the pass
 * counts drop below the committed floors in {@code conformance-floor.properties}: one for the cases whose ops are all
 * in {@code CORE_OPS.txt}, one for all cases.
 */
class ConformanceTest {
    @Test
    void passCountsStayAboveTheFloors() throws IOException {
        Path root = Path.of(System.getProperty("ortex.shared", "../../../shared"), "conformance");
        Path cases = root.resolve("onnx-node");
        assertTrue(Files.isDirectory(cases), "shared conformance data not found at " + cases);
        Set<String> core = new HashSet<>(Files.readAllLines(root.resolve("CORE_OPS.txt")));
        Set<String> coreCases = new HashSet<>();
        List<Path> all = new ArrayList<>();
        List<String> index = Files.readAllLines(cases.resolve("INDEX.tsv"));
        for (String line : index.subList(1, index.size())) {
            String[] cols = line.split("\t");
            all.add(cases.resolve(cols[0]));
            if (core.containsAll(List.of(cols[1].split(",")))) {
                coreCases.add(cols[0]);
            }
        }
        List<TestCommand.CaseResult> results;
        String kernels;
        try (Environment env = Environment.create()) {
            kernels = env.epDevices().stream().map(d -> d.epMetadata().get("kernels")).filter(k -> k != null)
                    .findFirst().orElseThrow();
            // the build runs this suite twice: with the Vector API module, and on a JVM without it
            String expected = System.getProperty("ortex.test.kernels", "vector");
            assertTrue(kernels.startsWith(expected.equals("plain") ? "plain Java" : "Vector API"), kernels);
            results = TestCommand.runCases(env, all, new SessionOptions().intraOpThreads(1),
                    TestCommand.DEFAULT_RTOL, TestCommand.DEFAULT_ATOL, r -> { });
        }
        int corePassed = 0;
        int allPassed = 0;
        List<String> report = new ArrayList<>();
        for (TestCommand.CaseResult r : results) {
            boolean pass = r.outcome() == TestCommand.Outcome.PASS;
            allPassed += pass ? 1 : 0;
            corePassed += pass && coreCases.contains(r.name()) ? 1 : 0;
            report.add(r.line());
        }
        String summary = String.format("core: %d of %d passed (%.1f%%); all: %d of %d passed (%.1f%%)", corePassed,
                coreCases.size(), 100.0 * corePassed / coreCases.size(), allPassed, all.size(),
                100.0 * allPassed / all.size());
        report.add(summary);
        Files.createDirectories(Path.of("target"));
        report.add("kernels: " + kernels);
        Files.write(Path.of("target", kernels.startsWith("plain") ? "conformance-report-plain-java.txt"
                : "conformance-report.txt"), report);
        System.out.println("conformance " + summary);
        Properties floor = new Properties();
        try (InputStream in = ConformanceTest.class.getResourceAsStream("/conformance-floor.properties")) {
            floor.load(in);
        }
        int coreFloor = Integer.parseInt(floor.getProperty("core.passed"));
        int allFloor = Integer.parseInt(floor.getProperty("all.passed"));
        assertTrue(corePassed >= coreFloor, "core cases passed " + corePassed + " < floor " + coreFloor);
        assertTrue(allPassed >= allFloor, "all cases passed " + allPassed + " < floor " + allFloor);
    }
}
