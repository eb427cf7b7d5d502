package io.ortex.benchmarks.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving load test in short ({@code benchmarks/serving-report} runs the long one): the distribution's
 * {@code bin/ortex serve} with all-MiniLM-L6-v2 copied into its {@code models/}, 4 closed-loop clients per phase over
 * REST and gRPC, batched and not, one example EP drop and removal (the model reloaded onto the EP's virtual NPU and
 * off it again) and one version swap while they run. Every answer is compared with a direct session run; no request
 * may fail. Nothing is timed: only counts and outcomes are asserted. (In the load test's package: it reads the
 * phases' results, which are not public.)
 */
class ServingLoadIT {
    @Test
    void noRequestFailsAndEveryAnswerIsRightWhileEpsAndVersionsChange(@TempDir Path work) throws Exception {
        Path dist = Path.of(System.getProperty("ortex.dist", "../assembly/target/ortex")).toAbsolutePath();
        // a drain limit of 120 s, not 30: on a busy build machine the emulated NPU may answer its last requests late
        LoadSettings settings = new LoadSettings(dist, work, 4, 4, 32, 1, 1,
                List.of("rest", "grpc-batched", "rest-batched-ep", "grpc-version"), 120);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        LoadReport report = ServingLoad.run(settings, new PrintStream(progress, true, StandardCharsets.UTF_8));
        String printed = progress.toString(StandardCharsets.UTF_8);

        assertEquals(4, report.phases().size(), printed);
        for (PhaseResult r : report.phases()) {
            assertNull(r.disturbanceFailure(), () -> r.title() + ": " + r.disturbanceFailure() + "\n" + printed);
            assertEquals(0, r.failureCount(), () -> r.title() + ": " + r.failures() + "\n" + printed);
            assertTrue(r.latencies().count() >= 4, r.title() + " answered requests\n" + printed);
        }
        assertTrue(report.passed(), printed);
        List<String> epEvents = report.phases().get(2).events().stream().map(PhaseResult.EventWindow::what).toList();
        assertEquals(List.of("example EP jar dropped into deploy/", "example EP active",
                "config.properties rewritten (policy=PREFER_NPU)", "model reloaded on the example EP",
                "example EP jar removed from deploy/", "model reloaded without the example EP"),
                epEvents.subList(0, 6), printed);
        // the session on the example EP drained: none was failed at the drain limit
        assertTrue(epEvents.get(6).matches("example EP removed: EP library 'io.ortex.ep.example' removed after \\d+ "
                + "ms: drained"), epEvents.get(6));
        assertEquals(7, epEvents.size(), epEvents.toString());
        assertEquals(List.of("version 2 copied in", "version 2 serving", "version 1 folder deleted",
                "version 1 closed"),
                report.phases().get(3).events().stream().map(PhaseResult.EventWindow::what).toList());
        // the batched phase merged requests: the server's own batch size histogram says so
        assertTrue(report.phases().get(1).meanBatch() >= 1.0, printed);

        String md = ReportWriter.markdown(report, "", Machine.loadAverage());
        assertTrue(md.contains("| `rest-batched-ep` | REST | on | 1 example EP drop/remove cycle |"), md);
        assertTrue(md.contains("None: every request of every phase was answered"), md);
    }
}
