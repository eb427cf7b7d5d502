package io.ortex.serve.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.HardwareDevice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The server's metrics, written in the Prometheus text exposition format (version 0.0.4) at {@code /metrics}: per
 * model and version, inference requests and failures ({@code ortex_inference_requests_total},
 * {@code ortex_inference_failures_total}), histograms of the whole request's latency
 * ({@code ortex_inference_request_duration_seconds}), of the time a batched request waited in its model's queue
 * ({@code ortex_inference_queue_duration_seconds}), of the model run alone
 * ({@code ortex_inference_compute_duration_seconds}; for a batched request, its batch's run) and of the requests each
 * run served ({@code ortex_inference_batch_size}); and per EP device, the state of its library
 * ({@code ortex_ep_device_state}, 1 for the current state, 0 for the others). Recording is lock-free; thread safe.
 */
public final class Metrics {
    /** The histograms' upper bounds, in seconds. */
    static final double[] BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    /** The batch-size histogram's upper bounds, in requests. */
    static final double[] BATCH_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256};

    private final Map<String, ModelMetrics> byModel = new ConcurrentSkipListMap<>();
    private final Supplier<List<EpDevice>> epDevices;
    private final Supplier<List<EpLibraryInfo>> epLibraries;

    /** Creates empty metrics without EP device states. */
    public Metrics() {
        this(List::of, List::of);
    }

    /**
     * Creates empty metrics that report the EP devices' states, read when the metrics are written.
     *
     * @param epDevices the selectable EP devices ({@code Environment::epDevices})
     * @param epLibraries the EP libraries with their states ({@code Environment::epLibraries})
     */
    public Metrics(Supplier<List<EpDevice>> epDevices, Supplier<List<EpLibraryInfo>> epLibraries) {
        this.epDevices = epDevices;
        this.epLibraries = epLibraries;
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
        record(model, version, ok, requestNanos, -1, computeNanos);
    }

    /**
     * Records one inference request.
     *
     * @param model the model's name
     * @param version the version that served it (empty when none was found)
     * @param ok whether it succeeded
     * @param requestNanos the whole request's time
     * @param queueNanos the time it waited in the batching queue, or -1 when it was not batched or did not get there
     * @param computeNanos the model run's time, or -1 when the model did not run
     */
    public void record(String model, String version, boolean ok, long requestNanos, long queueNanos,
            long computeNanos) {
        ModelMetrics m = model(model, version);
        m.requests.increment();
        m.rate.record(System.nanoTime());
        if (!ok) {
            m.failures.increment();
        }
        m.request.observe(requestNanos);
        if (queueNanos >= 0) {
            m.queue.observe(queueNanos);
        }
        if (computeNanos >= 0) {
            m.compute.observe(computeNanos);
        }
    }

    /**
     * Records one model run and how many requests it served (1 when the model is not batched).
     *
     * @param model the model's name
     * @param version the version
     * @param requests the requests merged into the run
     */
    public void recordBatch(String model, String version, int requests) {
        model(model, version).batch.observe(requests);
    }

    private ModelMetrics model(String model, String version) {
        return byModel.computeIfAbsent(labels(model, version), k -> new ModelMetrics(model, version));
    }

    /**
     * Reads each model version's figures now, for the status page: counts, the request rate of the last minute and
     * latencies estimated from the request histogram.
     *
     * @return one entry per model and version that had requests, by model then version
     */
    public List<ModelStats> snapshot() {
        long now = System.nanoTime();
        List<ModelStats> stats = new ArrayList<>();
        for (ModelMetrics m : byModel.values()) {
            long count = m.request.count.sum();
            stats.add(new ModelStats(m.model, m.version, m.requests.sum(), m.failures.sum(), m.rate.perSecond(now),
                    count == 0 ? 0 : m.request.sum.sum() / 1e6 / count, m.request.quantile(0.5) * 1e3,
                    m.request.quantile(0.99) * 1e3));
        }
        return stats;
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
                "Time from a request's arrival to its response, by model and version.", m -> m.request);
        histogram(sb, "ortex_inference_queue_duration_seconds",
                "Time a batched request waited for its batch to run, by model and version.", m -> m.queue);
        histogram(sb, "ortex_inference_compute_duration_seconds",
                "Time the model ran for a request (its batch's run), by model and version.", m -> m.compute);
        histogram(sb, "ortex_inference_batch_size",
                "Requests served by one model run, by model and version.", m -> m.batch);
        epDeviceStates(sb);
        return sb.toString();
    }

    /** One gauge per EP device and state: 1 for its library's state now, 0 for the other. */
    private void epDeviceStates(StringBuilder sb) {
        String name = "ortex_ep_device_state";
        sb.append("# HELP ").append(name).append(" The state of each EP device's library (active: selectable; "
                + "draining: its removal waits for the sessions holding it), 1 for the state it is in.\n");
        sb.append("# TYPE ").append(name).append(" gauge\n");
        List<EpLibraryInfo> libraries = epLibraries.get();
        Set<EpDevice> listed = new HashSet<>();
        List<String[]> rows = new ArrayList<>();
        for (EpLibraryInfo lib : libraries) {
            for (EpDevice d : lib.devices()) {
                listed.add(d);
                rows.add(new String[] {lib.name(), d.epName(), device(d.device()), lib.state().name()});
            }
        }
        for (EpDevice d : epDevices.get()) {
            if (!listed.contains(d)) {  // an environment that lists no libraries: selectable means active
                rows.add(new String[] {"", d.epName(), device(d.device()), EpLibraryInfo.State.ACTIVE.name()});
            }
        }
        Set<String> seen = new HashSet<>();
        for (String[] row : rows) {
            String labels = "library=\"" + escape(row[0]) + "\",ep=\"" + escape(row[1]) + "\",device=\""
                    + escape(row[2]);
            String unique = labels;
            for (int n = 2; !seen.add(unique); n++) {
                unique = labels + " #" + n;  // two devices alike in every field reported
            }
            for (EpLibraryInfo.State state : EpLibraryInfo.State.values()) {
                sb.append(name).append('{').append(unique).append("\",state=\"")
                        .append(state.name().toLowerCase(Locale.ROOT)).append("\"} ")
                        .append(state.name().equals(row[3]) ? 1 : 0).append('\n');
            }
        }
    }

    /** A device's label: type, PCI vendor and device ids, and its bus or virtual mark where known. */
    private static String device(HardwareDevice d) {
        String bus = d.metadata().get("pci_bus_id");
        return String.format(Locale.ROOT, "%s %04x:%04x", d.type(), d.vendorId(), d.deviceId())
                + (bus == null ? "" : " " + bus) + (d.isVirtual() ? " virtual" : "");
    }

    private void counter(StringBuilder sb, String name, String help, boolean requests) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" counter\n");
        byModel.forEach((labels, m) -> sb.append(name).append('{').append(labels).append("} ")
                .append((requests ? m.requests : m.failures).sum()).append('\n'));
    }

    private void histogram(StringBuilder sb, String name, String help,
            java.util.function.Function<ModelMetrics, Histogram> which) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" histogram\n");
        byModel.forEach((labels, m) -> which.apply(m).write(sb, name, labels));
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
        final String model;
        final String version;
        final RecentRate rate = new RecentRate(System.nanoTime());
        final LongAdder requests = new LongAdder();
        final LongAdder failures = new LongAdder();
        final Histogram request = new Histogram(BUCKETS, 1e9);
        final Histogram queue = new Histogram(BUCKETS, 1e9);
        final Histogram compute = new Histogram(BUCKETS, 1e9);
        final Histogram batch = new Histogram(BATCH_BUCKETS, 1);

        ModelMetrics(String model, String version) {
            this.model = model;
            this.version = version;
        }
    }

    /**
     * A histogram with fixed bounds, counts per bucket (cumulated when written), over whole units (nanoseconds,
     * requests) written in the metric's unit (seconds).
     */
    private static final class Histogram {
        final double[] bounds;
        final double unitsPerValue;
        final LongAdder[] counts;
        final LongAdder count = new LongAdder();
        final LongAdder sum = new LongAdder();

        Histogram(double[] bounds, double unitsPerValue) {
            this.bounds = bounds;
            this.unitsPerValue = unitsPerValue;
            counts = new LongAdder[bounds.length];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = new LongAdder();
            }
        }

        void observe(long units) {
            double value = units / unitsPerValue;
            for (int i = 0; i < bounds.length; i++) {
                if (value <= bounds[i]) {
                    counts[i].increment();
                    break;
                }
            }
            count.increment();
            sum.add(units);
        }

        /**
         * Estimates a quantile as Prometheus's {@code histogram_quantile} does: linearly within the bucket that
         * holds it; the last finite bound when it lies beyond.
         */
        double quantile(double q) {
            long total = count.sum();
            if (total == 0) {
                return 0;
            }
            double rank = q * total;
            long cumulative = 0;
            for (int i = 0; i < bounds.length; i++) {
                long inBucket = counts[i].sum();
                if (cumulative + inBucket >= rank && inBucket > 0) {
                    double lower = i == 0 ? 0 : bounds[i - 1];
                    return lower + (bounds[i] - lower) * (rank - cumulative) / inBucket;
                }
                cumulative += inBucket;
            }
            return bounds[bounds.length - 1];
        }

        void write(StringBuilder sb, String name, String labels) {
            long total = count.sum();
            long cumulative = 0;
            for (int i = 0; i < bounds.length; i++) {
                cumulative += counts[i].sum();
                sb.append(name).append("_bucket{").append(labels).append(",le=\"").append(bound(bounds[i]))
                        .append("\"} ").append(Math.min(cumulative, total)).append('\n');
            }
            sb.append(name).append("_bucket{").append(labels).append(",le=\"+Inf\"} ").append(total).append('\n');
            sb.append(name).append("_sum{").append(labels).append("} ")
                    .append(unitsPerValue == 1 ? Long.toString(sum.sum())
                            : String.format(Locale.ROOT, "%.9f", sum.sum() / unitsPerValue)).append('\n');
            sb.append(name).append("_count{").append(labels).append("} ").append(total).append('\n');
        }

        private static String bound(double b) {
            return b == Math.rint(b) ? String.format(Locale.ROOT, "%.1f", b)
                    : java.math.BigDecimal.valueOf(b).toPlainString();
        }
    }
}
