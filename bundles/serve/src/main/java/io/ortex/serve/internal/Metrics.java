package io.ortex.serve.internal;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's metrics, written in the Prometheus text exposition format (version 0.0.4) at {@code /metrics}: per
 * model and version, inference requests and failures ({@code ortex_inference_requests_total},
 * {@code ortex_inference_failures_total}), and histograms of the whole request's latency
 * ({@code ortex_inference_request_duration_seconds}) and of the model run alone
 * ({@code ortex_inference_compute_duration_seconds}). Recording is lock-free; thread safe.
 */
public final class Metrics {
    /** The histograms' upper bounds, in seconds. */
    static final double[] BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final Map<String, ModelMetrics> byModel = new ConcurrentSkipListMap<>();

    /** Creates empty metrics. */
    public Metrics() {
    }

    /**
     * Records one inference request.
     *
     * @param model the model's name
     * @param version the version that served it (empty when none was found)
     * @param ok whether it succeeded
     * @param requestNanos the whole request's time
     * @param computeNanos the model run's time, or -1 when the model did not run
     */
    public void record(String model, String version, boolean ok, long requestNanos, long computeNanos) {
        ModelMetrics m = byModel.computeIfAbsent(labels(model, version), k -> new ModelMetrics());
        m.requests.increment();
        if (!ok) {
            m.failures.increment();
        }
        m.request.observe(requestNanos);
        if (computeNanos >= 0) {
            m.compute.observe(computeNanos);
        }
    }

    /**
     * Writes every metric in the Prometheus text format.
     *
     * @return the text
     */
    public String prometheusText() {
        StringBuilder sb = new StringBuilder();
        counter(sb, "ortex_inference_requests_total", "Inference requests, by model and version.", true);
        counter(sb, "ortex_inference_failures_total", "Inference requests that failed, by model and version.", false);
        histogram(sb, "ortex_inference_request_duration_seconds",
                "Time from a request's arrival to its response, by model and version.", true);
        histogram(sb, "ortex_inference_compute_duration_seconds",
                "Time the model ran for a request, by model and version.", false);
        return sb.toString();
    }

    private void counter(StringBuilder sb, String name, String help, boolean requests) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" counter\n");
        byModel.forEach((labels, m) -> sb.append(name).append('{').append(labels).append("} ")
                .append((requests ? m.requests : m.failures).sum()).append('\n'));
    }

    private void histogram(StringBuilder sb, String name, String help, boolean request) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" histogram\n");
        byModel.forEach((labels, m) -> (request ? m.request : m.compute).write(sb, name, labels));
    }

    private static String labels(String model, String version) {
        return "model=\"" + escape(model) + "\",version=\"" + escape(version) + "\"";
    }

    /** Escapes a label value as the format asks: backslash, double quote and line feed. */
    static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** The metrics of one model version. */
    private static final class ModelMetrics {
        final LongAdder requests = new LongAdder();
        final LongAdder failures = new LongAdder();
        final Histogram request = new Histogram();
        final Histogram compute = new Histogram();
    }

    /** A histogram with the fixed {@link #BUCKETS}, counts per bucket (cumulated when written). */
    private static final class Histogram {
        final LongAdder[] counts = new LongAdder[BUCKETS.length];
        final LongAdder count = new LongAdder();
        final LongAdder sumNanos = new LongAdder();

        Histogram() {
            for (int i = 0; i < counts.length; i++) {
                counts[i] = new LongAdder();
            }
        }

        void observe(long nanos) {
            double seconds = nanos / 1e9;
            for (int i = 0; i < BUCKETS.length; i++) {
                if (seconds <= BUCKETS[i]) {
                    counts[i].increment();
                    break;
                }
            }
            count.increment();
            sumNanos.add(nanos);
        }

        void write(StringBuilder sb, String name, String labels) {
            long total = count.sum();
            long cumulative = 0;
            for (int i = 0; i < BUCKETS.length; i++) {
                cumulative += counts[i].sum();
                sb.append(name).append("_bucket{").append(labels).append(",le=\"").append(bound(BUCKETS[i]))
                        .append("\"} ").append(Math.min(cumulative, total)).append('\n');
            }
            sb.append(name).append("_bucket{").append(labels).append(",le=\"+Inf\"} ").append(total).append('\n');
            sb.append(name).append("_sum{").append(labels).append("} ")
                    .append(String.format(Locale.ROOT, "%.9f", sumNanos.sum() / 1e9)).append('\n');
            sb.append(name).append("_count{").append(labels).append("} ").append(total).append('\n');
        }

        private static String bound(double b) {
            return b == Math.rint(b) ? String.format(Locale.ROOT, "%.1f", b)
                    : java.math.BigDecimal.valueOf(b).toPlainString();
        }
    }
}
