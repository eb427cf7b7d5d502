package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Tensor;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * Float32 matrix product {@code C = A x B} (square, B a constant initializer, as a layer's weights are) through a
 * one-node MatMul model, in Ortex and in ONNX Runtime in the same run. GFLOP/s = 2 n^3 / time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class GemmBenchmark {
    /** The matrix size. */
    @Param({"256", "512", "1024", "2048"})
    public int n;

    /** Intra-op threads of both runtimes. */
    @Param({"1", "2"})
    public int threads;

    private Peers peers;
    private Map<String, Tensor> ortexFeeds;
    private Map<String, OnnxTensor> ortFeeds;

    /** Opens both sessions on the same model. */
    @Setup(Level.Trial)
    public void open() throws OrtException {
        peers = new Peers(BenchModels.matMul(n, n, n, 7), threads);
        float[] a = BenchModels.randomFloats(n * n, 11);
        ortexFeeds = Map.of("X", Tensor.ofFloats(a, n, n));
        ortFeeds = Map.of("X", Peers.ortFloats(a, n, n));
    }

    /** Closes both sessions. */
    @TearDown(Level.Trial)
    public void close() throws OrtException {
        ortFeeds.values().forEach(OnnxTensor::close);
        peers.close();
    }

    /**
     * Ortex's CPU EP.
     *
     * @return the product, so that it is not optimized away
     */
    @Benchmark
    public Object ortex() {
        return peers.runOrtex(ortexFeeds);
    }

    /**
     * ONNX Runtime's CPU EP.
     *
     * @return the product's first element
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public float onnxRuntime() throws OrtException {
        try (OrtSession.Result r = peers.runOrt(ortFeeds)) {
            return ((float[][]) r.get(0).getValue())[0][0];
        }
    }
}
