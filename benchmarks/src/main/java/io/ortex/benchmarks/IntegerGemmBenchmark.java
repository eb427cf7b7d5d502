package io.ortex.benchmarks;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * 8-bit matrix product {@code Y = (X - 128) x W} into int32 (X uint8 fed at run time, W a constant int8 weight, square)
 * through a one-node MatMulInteger model, in Ortex and in ONNX Runtime in the same run. GOP/s = 2 n^3 / time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class IntegerGemmBenchmark extends PeerBenchmark {
    /** The matrix size. */
    @Param({"1024"})
    public int n;

    /** Intra-op threads of both runtimes. */
    @Param({"1", "2"})
    public int threads;

    /** Opens both sessions on the same model. */
    @Setup(Level.Trial)
    public void open() throws OrtException {
        peers = new Peers(BenchModels.matMulInteger(n, n, n, 7), threads);
        byte[] x = BenchModels.randomBytes(n * n, 11);
        ortexFeeds = Map.of("X", Tensor.of(ElementType.UINT8, new long[] {n, n}, x));
        ortFeeds = Map.of("X", OnnxTensor.createTensor(OrtEnvironment.getEnvironment(), ByteBuffer.wrap(x),
                new long[] {n, n}, OnnxJavaType.UINT8));
    }
}
