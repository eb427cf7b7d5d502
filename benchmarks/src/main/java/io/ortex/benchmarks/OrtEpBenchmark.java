package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One inference of a real model through Ortex with the ONNX Runtime EP ({@code OrtExecutionProvider} appended
 * explicitly) against ONNX Runtime's Java API called directly, and Ortex's built-in CPU EP beside them, in the same
 * run, same thread count, ONNX Runtime's
 * default optimizations on both sides. Both return the outputs as Java arrays: Ortex copies its inputs into direct
 * buffers on every run, while the direct side feeds tensors created once in setup, which favours it. Run with
 * {@code java -jar benchmarks/target/benchmarks.jar OrtEpBenchmark}; the models come from
 * {@code ~/.cache/ortex-models}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class OrtEpBenchmark {
    /** The model's folder in the cache. */
    @Param({"all-minilm-l6-v2", "ppocr-v4-det"})
    public String model;

    /** Intra-op threads of both. */
    @Param({"2"})
    public int threads;

    private Environment ortexEnv;
    private Session ortex;
    private Session ortexCpu;
    private OrtSession ort;
    private Map<String, Tensor> ortexFeeds;
    private Map<String, OnnxTensor> ortFeeds;

    /**
     * Opens both sessions on the same model file.
     *
     * @throws Exception when a model or a runtime fails
     */
    @Setup(Level.Trial)
    public void open() throws Exception {
        String file = RealModels.file(model).toString();
        ortexFeeds = RealModels.inputs(model);
        ortexEnv = Environment.create();
        List<EpDevice> devices = ortexEnv.epDevices().stream()
                .filter(d -> d.epName().equals("OrtExecutionProvider")).toList();
        if (devices.isEmpty()) {
            throw new IllegalStateException("no OrtExecutionProvider device: " + ortexEnv.epDevices());
        }
        ortex = ortexEnv.createSession(java.nio.file.Path.of(file), new SessionOptions().intraOpThreads(threads)
                .appendExecutionProvider(devices, Map.of()));
        ortexCpu = ortexEnv.createSession(java.nio.file.Path.of(file), new SessionOptions().intraOpThreads(threads));
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(threads);
            ort = OrtEnvironment.getEnvironment().createSession(file, o);
        }
        ortFeeds = new HashMap<>();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        for (Map.Entry<String, Tensor> e : ortexFeeds.entrySet()) {
            Tensor t = e.getValue();
            ortFeeds.put(e.getKey(), t.type() == io.ortex.api.ElementType.FLOAT
                    ? OnnxTensor.createTensor(env, FloatBuffer.wrap(t.floats()), t.shape())
                    : OnnxTensor.createTensor(env, LongBuffer.wrap(t.longs()), t.shape()));
        }
    }

    /**
     * Closes everything.
     *
     * @throws OrtException when ONNX Runtime fails
     */
    @TearDown(Level.Trial)
    public void close() throws OrtException {
        ortFeeds.values().forEach(OnnxTensor::close);
        ort.close();
        ortex.close();
        ortexCpu.close();
        ortexEnv.close();
    }

    /**
     * Ortex with the ONNX Runtime EP.
     *
     * @return the outputs
     */
    @Benchmark
    public Object ortexWithOrtEp() {
        return ortex.run(ortexFeeds);
    }

    /**
     * Ortex's built-in CPU EP (pure Java), for comparison.
     *
     * @return the outputs
     */
    @Benchmark
    public Object ortexCpuEp() {
        return ortexCpu.run(ortexFeeds);
    }

    /**
     * The time of each side within one benchmark invocation, reported by JMH as secondary results: milliseconds spent
     * in ONNX Runtime and in Ortex with the ONNX Runtime EP, summed per iteration, and the number of pairs. Their
     * ratio compares the two under the same load at the same moments, which matters on a shared machine.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Pairs {
        /** Milliseconds in ONNX Runtime's Java API this iteration. */
        public double ortMs;
        /** Milliseconds in Ortex with the ONNX Runtime EP this iteration. */
        public double ortexMs;
        /** Pairs run this iteration. */
        public long pairs;

        /** Starts an iteration's sums from zero. */
        @Setup(Level.Iteration)
        public void reset() {
            ortMs = 0;
            ortexMs = 0;
            pairs = 0;
        }
    }

    /**
     * One run on each side, back to back, alternating which goes first; the split goes to {@link Pairs}.
     *
     * @param pairs where the two times are summed
     * @return a value of both outputs
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public Object paired(Pairs pairs) throws OrtException {
        boolean ortFirst = (pairs.pairs & 1) == 0;
        long t0 = System.nanoTime();
        Object first = ortFirst ? onnxRuntime() : ortex.run(ortexFeeds);
        long t1 = System.nanoTime();
        Object second = ortFirst ? ortex.run(ortexFeeds) : onnxRuntime();
        long t2 = System.nanoTime();
        double a = (t1 - t0) / 1e6;
        double b = (t2 - t1) / 1e6;
        pairs.ortMs += ortFirst ? a : b;
        pairs.ortexMs += ortFirst ? b : a;
        pairs.pairs++;
        return ortFirst ? second : first;
    }

    /**
     * ONNX Runtime's Java API directly, outputs copied out as Java arrays.
     *
     * @return the first output's first element
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public float onnxRuntime() throws OrtException {
        try (OrtSession.Result r = ort.run(ortFeeds)) {
            float first = 0;
            for (Map.Entry<String, OnnxValue> e : r) {
                float[] out = ((OnnxTensor) e.getValue()).getFloatBuffer().array();
                first += out[0];
            }
            return first;
        }
    }
}
