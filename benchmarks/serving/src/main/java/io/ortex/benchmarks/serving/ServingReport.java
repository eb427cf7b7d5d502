package io.ortex.benchmarks.serving;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The command behind {@code benchmarks/serving-report}: runs the load test and writes {@code docs/serving.md}.
 * Exits with 0 when every request succeeded, 1 when a request failed or a change was not followed, 2 for bad usage.
 */
public final class ServingReport {
    private static final String USAGE = "usage: serving-report [--dist DIR] [--work DIR] [--out FILE] [--clients N] "
            + "[--seconds S] [--tokens N] [--ep-cycles N] [--swaps N] [--phases ID,...] [--drain-limit S] "
            + "[--note TEXT]";

    private ServingReport() {
    }

    /**
     * Runs the load test.
     *
     * @param args the options (see {@link #USAGE})
     * @throws Exception when the server cannot be prepared or started
     */
    public static void main(String[] args) throws Exception {
        Path dist = Path.of("assembly/target/ortex");
        Path work = null;
        Path out = Path.of("docs/serving.md");
        int clients = 16;
        double seconds = 60;
        int tokens = 32;
        int epCycles = 3;
        int swaps = 3;
        List<String> phases = ServingLoad.PHASES;
        String note = "";
        int drainLimit = 0;
        try {
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                if (value == null) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                switch (args[i++]) {
                    case "--dist" -> dist = Path.of(value);
                    case "--work" -> work = Path.of(value);
                    case "--out" -> out = Path.of(value);
                    case "--clients" -> clients = Integer.parseInt(value);
                    case "--seconds" -> seconds = Double.parseDouble(value);
                    case "--tokens" -> tokens = Integer.parseInt(value);
                    case "--ep-cycles" -> epCycles = Integer.parseInt(value);
                    case "--swaps" -> swaps = Integer.parseInt(value);
                    case "--phases" -> phases = Arrays.asList(value.split(","));
                    case "--note" -> note = value;
                    case "--drain-limit" -> drainLimit = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i - 1]);
                }
            }
            if (work == null) {
                work = Files.createTempDirectory("ortex-serving-load");
            }
            LoadSettings settings = new LoadSettings(dist.toAbsolutePath(), work, clients, seconds, tokens, epCycles,
                    swaps, phases, drainLimit);
            LoadReport report = ServingLoad.run(settings, System.out);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, ReportWriter.markdown(report, note, Machine.loadAverage()));
            System.out.println("wrote " + out + (report.passed() ? "; no request failed"
                    : "; " + report.failures() + " requests FAILED"));
            System.exit(report.passed() ? 0 : 1);
        } catch (IllegalArgumentException e) {
            System.err.println("serving-report: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        } catch (IOException e) {
            System.err.println("serving-report: " + e.getMessage());
            System.exit(1);
        }
    }
}
