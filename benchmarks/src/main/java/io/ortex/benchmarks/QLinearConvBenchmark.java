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
 * {@link ConvBenchmark}'s PP-OCRv4 det layers quantized: one-node QLinearConv models (uint8 input, constant int8
 * weights with per-channel scales, int32 bias, uint8 output), in Ortex and in ONNX Runtime in the same run.
 * GOP/s = 2 M (C / group) k^2 OH OW / time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class QLinearConvBenchmark extends PeerBenchmark {
    /**
     * The layer: {@code C-M-HxW-kK-sS-gG} (input channels, output channels, input size, kernel, stride, group; the
     * padding keeps the size at stride 1).
     */
    @Param({"3-16-640x640-k3-s2-g1", "16-16-320x320-k3-s1-g16", "32-32-320x320-k3-s2-g32",
        "16-32-320x320-k1-s1-g1", "96-96-80x80-k1-s1-g1", "384-384-20x20-k1-s1-g1", "192-192-40x40-k5-s1-g192",
        "96-24-160x160-k3-s1-g1"})
    public String layer;

    /** Intra-op threads of both runtimes. */
    @Param({"1", "2"})
    public int threads;

    /** Opens both sessions on the same one-layer model. */
    @Setup(Level.Trial)
    public void open() throws OrtException {
        String[] p = layer.split("-");
        int c = Integer.parseInt(p[0]);
        int m = Integer.parseInt(p[1]);
        String[] hw = p[2].split("x");
        int h = Integer.parseInt(hw[0]);
        int w = Integer.parseInt(hw[1]);
        int k = Integer.parseInt(p[3].substring(1));
        int s = Integer.parseInt(p[4].substring(1));
        int g = Integer.parseInt(p[5].substring(1));
        peers = new Peers(BenchModels.qlinearConv(c, m, h, w, k, s, g, 3), threads);
        byte[] x = BenchModels.randomBytes(c * h * w, 5);
        ortexFeeds = Map.of("X", Tensor.of(ElementType.UINT8, new long[] {1, c, h, w}, x));
        ortFeeds = Map.of("X", OnnxTensor.createTensor(OrtEnvironment.getEnvironment(), ByteBuffer.wrap(x),
                new long[] {1, c, h, w}, OnnxJavaType.UINT8));
    }
}
