package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Times one real model, or one square matrix product, in Ortex and in ONNX Runtime, on 1 and on 2 threads, taking
 * turns in one process: each round runs the four sides one after the other, each for a short block of runs, so that
 * all four see the same state of the host. Started by {@link PerformanceReport} in a JVM of its own, once per model
 * and once per matrix size.
 *
 * <p>Why: this host's speed changes every few seconds, and its slow phases slow Ortex's code more than ONNX
 * Runtime's. Two JMH forks measured one after the other each sample phases of their own; blocks a few hundred
 * milliseconds long, taking turns, sample the same ones, and the ratio of two neighbouring blocks compares the
 * runtimes alone.
 *
 * <p>Each block starts with {@link HostProbe}, which says how fast the core multiplies and adds at that moment, so a
 * round's ratio can be told apart by the host's state: full speed, or slowed by something else on the core.
 *
 * <p>A block then runs the side until {@link #SETTLE_NANOS} have passed (at least once), unrecorded: the side before
 * may still hold a core (ONNX Runtime's workers spin for a while after a run) and the caches hold its data. Then it
 * records runs for at least {@link #BLOCK_NANOS} and at least {@link #BLOCK_RUNS} runs, and keeps their median.
 *
 * <p>Prints, one per line: {@code side RUNTIME THREADS MEDIAN_MS} (the median of its block medians);
 * {@code ratio THREADS P25 P50 P75 FULL_P50 FULL_ROUNDS SLOWED_P50 SLOWED_ROUNDS} for the per-round ratios of
 * Ortex's block to ONNX Runtime's, all rounds then those where both blocks ran at full speed and those where both ran
 * slowed (NaN when there were none); {@code scaling RUNTIME ...}, the same figures for the per-round ratios of a
 * runtime's 1-thread block to its 2-thread block.
 *
 * <p>A matrix product is a one-node MatMul model, {@code C = A x B} with B a constant initializer (as a layer's
 * weights are), both runtimes writing C into an output the caller made once (pinned outputs), so that neither side's
 * time includes new output memory or, for ONNX Runtime, copying the product into Java arrays.
 *
 * <p>Usage: {@code InterleavedRuns MODEL|matmul-N|matmul-MxKxN [--quick]}, MODEL a name in the model cache, N the
 * size of square matrices, {@code MxKxN} the sizes of an {@code M x K} by {@code K x N} product.
 */
public final class InterleavedRuns {
    private static final long SETTLE_NANOS = 50_000_000L;
    private static final long BLOCK_NANOS = 250_000_000L;
    private static final int BLOCK_RUNS = 3;
    private static final int[] THREADS = {1, 2};
    private static final String[] RUNTIMES = {"ortex", "onnxruntime"};

    private InterleavedRuns() {
    }

    /** The prefix of a matrix-product target: {@code matmul-1024} multiplies two 1024 x 1024 matrices. */
    static final String MATMUL = "matmul-";

    /** One of the four: a runtime on a thread count, with its inputs. */
    private interface Side {
        void run() throws OrtException;
    }

    /**
     * Runs the rounds and prints the figures.
     *
     * @param args the model's name in the model cache, {@code matmul-N} or {@code matmul-MxKxN}, then
     *     {@code --quick} for a short check of the harness
     * @throws Exception when ONNX Runtime fails or a session does not close
     */
    public static void main(String[] args) throws Exception {
        String target = args[0];
        boolean quick = args.length > 1 && args[1].equals("--quick");
        int rounds = quick ? 3 : 24;
        long warmupNanos = quick ? 1_000_000_000L : 4_000_000_000L;
        List<AutoCloseable> open = new ArrayList<>();
        try {
            List<Side> sides = target.startsWith(MATMUL)
                    ? matMulSides(target.substring(MATMUL.length()), open)
                    : modelSides(target, open);
            for (Side s : sides) {
                block(s, warmupNanos, 1);
            }
            HostProbe.measure(); // compiled before the first round's probe, which then times the core, not the JIT
            double[][] medians = new double[sides.size()][rounds];
            double[][] probes = new double[sides.size()][rounds];
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < sides.size(); i++) {
                    // each round starts one side later, so that every side follows every other as often
                    int side = (i + round) % sides.size();
                    probes[side][round] = HostProbe.measure();
                    block(sides.get(side), SETTLE_NANOS, 1);
                    medians[side][round] = median(block(sides.get(side), BLOCK_NANOS, BLOCK_RUNS));
                }
            }
            print(medians, probes);
        } finally {
            for (AutoCloseable c : open) {
                c.close();
            }
        }
    }

    /** The four sides of a real model, in the order ortex 1, onnxruntime 1, ortex 2, onnxruntime 2. */
    private static List<Side> modelSides(String model, List<AutoCloseable> open) throws OrtException {
        byte[] bytes = RealModels.bytes(model);
        Map<String, Tensor> ortexFeeds = RealModels.inputs(model);
        Map<String, OnnxTensor> ortFeeds = RealModels.toOrt(ortexFeeds);
        open.addAll(ortFeeds.values());
        List<Side> sides = new ArrayList<>();
        for (int threads : THREADS) {
            Peers p = new Peers(bytes, threads);
            open.add(p);
            sides.add(() -> p.runOrtex(ortexFeeds));
            sides.add(() -> p.runOrt(ortFeeds).close());
        }
        return sides;
    }

    /**
     * The four sides of a matrix product into pinned outputs, in the same order: {@code N} for {@code N x N} by
     * {@code N x N}, or {@code MxKxN} for {@code M x K} by {@code K x N}.
     */
    private static List<Side> matMulSides(String size, List<AutoCloseable> open) throws OrtException {
        String[] dims = size.split("x");
        if (dims.length != 1 && dims.length != 3) {
            throw new IllegalArgumentException("a matrix product is matmul-N or matmul-MxKxN, not " + MATMUL + size);
        }
        int m = Integer.parseInt(dims[0]);
        int k = dims.length == 3 ? Integer.parseInt(dims[1]) : m;
        int n = dims.length == 3 ? Integer.parseInt(dims[2]) : m;
        byte[] bytes = BenchModels.matMul(m, k, n, 7);
        float[] a = BenchModels.randomFloats(m * k, 11);
        Map<String, Tensor> ortexFeeds = Map.of("X", Tensor.ofFloats(a, m, k));
        Map<String, Tensor> ortexOut = Map.of("Y", Tensor.zeros(ElementType.FLOAT, m, n));
        OnnxTensor ortIn = Peers.ortFloats(a, m, k);
        open.add(ortIn);
        OnnxTensor ortOut = Peers.ortOutputFloats(m, n);
        open.add(ortOut);
        Map<String, OnnxTensor> ortFeeds = Map.of("X", ortIn);
        Map<String, OnnxTensor> ortOuts = Map.of("Y", ortOut);
        List<Side> sides = new ArrayList<>();
        for (int threads : THREADS) {
            Peers p = new Peers(bytes, threads);
            open.add(p);
            sides.add(() -> p.runOrtex(ortexFeeds, ortexOut));
            sides.add(() -> p.runOrt(ortFeeds, ortOuts).close());
        }
        return sides;
    }

    /** Runs a side for at least {@code nanos} and {@code runs} runs; returns each run's time in milliseconds. */
    private static double[] block(Side side, long nanos, int runs) throws OrtException {
        double[] times = new double[16];
        int n = 0;
        long start = System.nanoTime();
        long now = start;
        while (n < runs || now - start < nanos) {
            side.run();
            long end = System.nanoTime();
            if (n == times.length) {
                times = Arrays.copyOf(times, n * 2);
            }
            times[n++] = (end - now) / 1e6;
            now = end;
        }
        return Arrays.copyOf(times, n);
    }

    private static void print(double[][] medians, double[][] probes) {
        HostProbe.Phases phases = HostProbe.Phases.of(probes);
        for (int t = 0; t < THREADS.length; t++) {
            for (int k = 0; k < RUNTIMES.length; k++) {
                System.out.printf(Locale.ROOT, "side %s %d %.4f%n", RUNTIMES[k], THREADS[t],
                        median(medians[2 * t + k]));
            }
        }
        for (int t = 0; t < THREADS.length; t++) {
            System.out.printf(Locale.ROOT, "ratio %d %s%n", THREADS[t], compare(medians, phases, 2 * t, 2 * t + 1));
        }
        for (int k = 0; k < RUNTIMES.length; k++) {
            System.out.printf(Locale.ROOT, "scaling %s %s%n", RUNTIMES[k], compare(medians, phases, k, 2 + k));
        }
    }

    /**
     * The per-round ratios of side {@code a}'s block to side {@code b}'s: their quartiles over all rounds, then their
     * median and count over the rounds where both blocks ran at full speed, and over those where both ran slowed.
     */
    private static String compare(double[][] medians, HostProbe.Phases phases, int a, int b) {
        int rounds = medians[a].length;
        double[] ratios = new double[rounds];
        List<Double> full = new ArrayList<>();
        List<Double> slowed = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            ratios[r] = medians[a][r] / medians[b][r];
            if (phases.full(a, r) && phases.full(b, r)) {
                full.add(ratios[r]);
            } else if (phases.slowed(a, r) && phases.slowed(b, r)) {
                slowed.add(ratios[r]);
            }
        }
        return String.format(Locale.ROOT, "%s %.4f %d %.4f %d", quartiles(ratios), median(full), full.size(),
                median(slowed), slowed.size());
    }

    private static String quartiles(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return String.format(Locale.ROOT, "%.4f %.4f %.4f", quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75));
    }

    private static double median(List<Double> values) {
        return values.isEmpty() ? Double.NaN : median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return quantile(v, 0.5);
    }

    /** The {@code q} quantile of sorted values, interpolating between the two nearest. */
    private static double quantile(double[] sorted, double q) {
        double at = q * (sorted.length - 1);
        int lo = (int) Math.floor(at);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
    }
}
