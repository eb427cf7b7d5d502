package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import java.nio.FloatBuffer;
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
 * one-node MatMul model, in Ortex and in ONNX Runtime in the same run. GFLOP/s = 2 n^3 / time. Both write the
 * product into an output the caller made once (pinned outputs), so that neither side's time includes new output
 * memory or, for ONNX Runtime, copying the product into Java arrays.
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
    private Map<String, Tensor> ortexOut;
    private Map<String, OnnxTensor> ortOut;
    private FloatBuffer ortOutView;

    /** Opens both sessions on the same model. */
    @Setup(Level.Trial)
    public void open() throws OrtException {
        peers = new Peers(BenchModels.matMul(n, n, n, 7), threads);
        float[] a = BenchModels.randomFloats(n * n, 11);
        ortexFeeds = Map.of("X", Tensor.ofFloats(a, n, n));
        ortFeeds = Map.of("X", Peers.ortFloats(a, n, n));
        ortexOut = Map.of("Y", Tensor.zeros(ElementType.FLOAT, n, n));
        ortOut = Map.of("Y", Peers.ortOutputFloats(n, n));
        ortOutView = (FloatBuffer) ortOut.get("Y").getBufferRef().orElseThrow();
    }

    /** Closes both sessions. */
    @TearDown(Level.Trial)
    public void close() throws OrtException {
        ortFeeds.values().forEach(OnnxTensor::close);
        ortOut.values().forEach(OnnxTensor::close);
        peers.close();
    }

    /**
     * Ortex's CPU EP, writing the product into the caller's tensor.
     *
     * @return the product's first element
     */
    @Benchmark
    public float ortex() {
        return peers.runOrtex(ortexFeeds, ortexOut).get("Y").floats()[0];
    }

    /**
     * ONNX Runtime's CPU EP, writing the product into the caller's direct buffer.
     *
     * @return the product's first element
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public float onnxRuntime() throws OrtException {
        try (OrtSession.Result r = peers.runOrt(ortFeeds, ortOut)) {
            return ortOutView.get(0);
        }
    }
}
