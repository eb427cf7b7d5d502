package io.ortex.benchmarks.serving;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Writes a {@link LoadReport} as Markdown, the content of {@code docs/serving.md}. */
final class ReportWriter {
    private ReportWriter() {
    }

    /**
     * Formats the report.
     *
     * @param report the report
     * @param note a sentence about the machine (shared with other work, ...), or empty
     * @param loadAfter the load average after the run
     * @return the Markdown text
     */
    static String markdown(LoadReport report, String note, String loadAfter) {
        LoadSettings s = report.settings();
        StringBuilder md = new StringBuilder();
        md.append("# Serving under load\n\n");
        md.append("Written by `benchmarks/serving-report` (").append(String.format(Locale.ROOT,
                "`--clients %d --seconds %s --tokens %d --ep-cycles %d --swaps %d%s`", s.clients(),
                trim(s.phaseSeconds()), s.tokens(), s.epCycles(), s.versionSwaps(),
                s.drainLimitSeconds() > 0 ? " --drain-limit " + s.drainLimitSeconds() : ""))
                .append("): the distribution's model server (`bin/ortex serve`, on 127.0.0.1 only) serves ")
                .append("all-MiniLM-L6-v2 twice, as `").append(ServingLoad.PLAIN).append("` (no batching) and `")
                .append(ServingLoad.BATCHED).append("` (dynamic batching: `")
                .append(ServingLoad.BATCHED_CONFIG.strip().replace("\n", "`, `")).append("`), and ")
                .append(s.clients()).append(" closed-loop clients (each sends its next request when the last one ")
                .append("was answered) ask one of them over one protocol per phase. REST: the JDK's ")
                .append("`java.net.http.HttpClient`, JSON input tensors, `last_hidden_state` back in the binary ")
                .append("tensor data extension. gRPC: the stub generated from `grpc_predict_v2.proto`, one shared ")
                .append("channel, raw input contents. Every answer is compared with a direct session run of the same ")
                .append("model in the load test's own process (CPU EP, within ").append(ExpectedOutputs.TOLERANCE)
                .append("); a wrong answer counts as a failed request. Latencies are exact (sorted, nearest rank), ")
                .append("from sending a request to having read its whole answer.\n\n");
        if (!note.isEmpty()) {
            md.append("**").append(note).append("**\n\n");
        }
        md.append("| | |\n| --- | --- |\n");
        md.append("| date | ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern(
                "yyyy-MM-dd HH:mm 'UTC'"))).append(" |\n");
        md.append("| machine | ").append(Machine.cpu()).append(", ").append(Machine.memory()).append(" memory, ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(" |\n");
        md.append("| JDK | ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append(" (the load test and the server) |\n");
        md.append("| model | all-MiniLM-L6-v2 (`").append(report.model().getFileName()).append("`, ")
                .append(report.model().toFile().length()).append(" bytes), output `last_hidden_state` |\n");
        md.append("| input | ").append(report.tokens()).append(" tokens per request (batch 1): real English ")
                .append("sentences as WordPiece ids of the model's `tokenizer.json`, `[CLS]` ... `[SEP]`, ")
                .append("attention mask of ones |\n");
        md.append("| load average before / after | ").append(report.loadBefore()).append(" / ").append(loadAfter)
                .append(" (1, 5, 15 minutes) |\n\n");

        md.append("## Throughput and latency\n\n");
        md.append("| phase | protocol | batching | meanwhile | seconds | requests | requests/s | p50 ms | p90 ms "
                + "| p99 ms | max ms | mean batch | failed |\n");
        md.append("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (PhaseResult r : report.phases()) {
            Latencies l = r.latencies();
            md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s | %.1f | %d | %.1f | %.1f | %.1f | %.1f "
                    + "| %.1f | %s | %d |%n", r.title(), r.protocol(), r.batched() ? "on" : "off", r.disturbance(),
                    r.seconds(), l.count(), r.throughput(), l.millis(50), l.millis(90), l.millis(99), l.maxMillis(),
                    Double.isNaN(r.meanBatch()) ? "" : String.format(Locale.ROOT, "%.2f", r.meanBatch()),
                    r.failureCount()));
        }
        md.append("\nA phase with changes runs on past its planned ").append(trim(s.phaseSeconds()))
                .append(" s until its last change is done, so that every change happens under load. The mean ")
                .append("batch is the server's own `ortex_inference_batch_size` over the phase (phases without ")
                .append("changes).\n\n");

        md.append("## What the changes cost\n\n");
        md.append("Each change, with the requests sent in the ").append(PhaseResult.WINDOW_NANOS / 1_000_000)
                .append(" ms after it: compare their latencies with the phase's p50 above. An EP cycle: the example ")
                .append("EP's jar is copied into `deploy/` (its virtual NPU granted by `virtual.grants`); as the ")
                .append("server moves no loaded model onto an EP that arrives, the model's `config.properties` is ")
                .append("then rewritten with `policy=PREFER_NPU`, which reloads it on the example EP; the jar is ")
                .append("deleted, the server loads the model again on the remaining EPs while the session on the ")
                .append("example EP drains, and the runtime logs when the removal is done and how. Requests that ")
                .append("the session on the example EP answers run on its emulated NPU (plain Java programs, all ")
                .append("clients sharing the machine's cores), so the latencies after \"model reloaded on the ")
                .append("example EP\" are that EP's speed; a cycle costs the clients the time until they are back ")
                .append("on a session without it. A version swap: ")
                .append("`models/NAME/N+1/` is copied in (under a hidden name, then renamed), the server switches ")
                .append("to it, `models/NAME/N/` is deleted, and version N closes after its last request.\n");
        boolean any = false;
        for (PhaseResult r : report.phases()) {
            if (r.events().isEmpty()) {
                continue;
            }
            any = true;
            md.append("\n### `").append(r.title()).append("`: ").append(r.disturbance()).append("\n\n");
            md.append("| at s | event | requests in the next second | p50 ms | p99 ms | max ms |\n");
            md.append("| ---: | --- | ---: | ---: | ---: | ---: |\n");
            for (PhaseResult.EventWindow e : r.events()) {
                Latencies w = e.window();
                md.append(String.format(Locale.ROOT, "| %.2f | %s | %d | %s | %s | %s |%n", e.atSeconds(),
                        e.what(), w.count(), ms(w.millis(50)), ms(w.millis(99)), ms(w.maxMillis())));
            }
        }
        if (!any) {
            md.append("\n(no phase with changes ran)\n");
        }

        md.append("\n## Failed requests\n\n");
        if (report.passed()) {
            md.append("None: every request of every phase was answered, and every answer equals the direct ")
                    .append("session run's.\n");
        } else {
            for (PhaseResult r : report.phases()) {
                if (r.disturbanceFailure() != null) {
                    md.append("- `").append(r.title()).append("`: the change failed: ")
                            .append(r.disturbanceFailure().getMessage().lines().findFirst().orElse("")).append('\n');
                }
                for (Recorder.Failure f : r.failures()) {
                    md.append(String.format(Locale.ROOT, "- `%s` at %.2f s, client %d: %s%n", r.title(),
                            f.atSeconds(), f.client(), f.error().replace('\n', ' ')));
                }
                if (r.failureCount() > r.failures().size()) {
                    md.append("- `").append(r.title()).append("`: ").append(r.failureCount() - r.failures().size())
                            .append(" more\n");
                }
            }
        }
        md.append("\n## Running it\n\n");
        md.append("`benchmarks/serving-report` (builds the distribution and the load test when missing; the model ")
                .append("comes from the cache `mvn -B verify` fills, `~/.cache/ortex-models`). Options: ")
                .append("`--clients N`, `--seconds S` (per phase), `--tokens N`, `--ep-cycles N`, `--swaps N`, ")
                .append("`--phases ID,...` (").append(String.join(", ", ServingLoad.PHASES))
                .append("), `--drain-limit S` (the runtime's `drain.limit.seconds`; the distribution's 30 s by ")
                .append("default), `--out FILE`, ")
                .append("`--note TEXT`. It exits with 1 when a request failed. `ServingLoadIT` runs a short version ")
                .append("in `mvn -B verify`.\n");
        return md.toString();
    }

    /** Milliseconds with one decimal, or a dash where no request was sent. */
    private static String ms(double millis) {
        return Double.isNaN(millis) ? "-" : String.format(Locale.ROOT, "%.1f", millis);
    }

    private static String trim(double seconds) {
        return seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds);
    }
}
