package io.ortex.benchmarks;

import ai.onnxruntime.OrtException;
import io.ortex.api.Tensor;
import java.util.LinkedHashMap;
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
 * The transformer kernels at all-MiniLM-L6-v2's sizes (sequence 128, 12 heads of 32, hidden 384) as one-node or
 * one-pattern models, in Ortex and ONNX Runtime in the same run: Softmax over the attention scores,
 * LayerNormalization of the hidden states, and the whole scaled masked attention; and the fixed costs: a run of
 * one tiny node, and a chain of 100 (the cost of dispatching a node).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class KernelBenchmark extends PeerBenchmark {
    /** The kernel. */
    @Param({"softmax", "layernorm", "attention", "one-node", "chain-100"})
    public String kernel;

    /** Intra-op threads of both runtimes. */
    @Param({"1", "2"})
    public int threads;

    /** Builds the model and its inputs, and opens both sessions. */
    @Setup(Level.Trial)
    public void open() throws OrtException {
        ortexFeeds = new LinkedHashMap<>();
        byte[] model;
        switch (kernel) {
            case "softmax":
                model = BenchModels.softmax(1, 12, 128, 128);
                ortexFeeds.put("x", Tensor.ofFloats(BenchModels.randomFloats(12 * 128 * 128, 1), 1, 12, 128, 128));
                break;
            case "layernorm":
                model = BenchModels.layerNorm(128, 384);
                ortexFeeds.put("x", Tensor.ofFloats(BenchModels.randomFloats(128 * 384, 1), 1, 128, 384));
                break;
            case "one-node":
                model = BenchModels.reluChain(1);
                ortexFeeds.put("x", Tensor.ofFloats(new float[] {-1, 2, -3, 4}, 1, 4));
                break;
            case "chain-100":
                model = BenchModels.reluChain(100);
                ortexFeeds.put("x", Tensor.ofFloats(new float[] {-1, 2, -3, 4}, 1, 4));
                break;
            default:
                model = BenchModels.attention(12, 128, 32);
                ortexFeeds.put("q", Tensor.ofFloats(BenchModels.randomFloats(12 * 128 * 32, 1), 1, 12, 128, 32));
                ortexFeeds.put("kt", Tensor.ofFloats(BenchModels.randomFloats(12 * 128 * 32, 2), 1, 12, 32, 128));
                ortexFeeds.put("v", Tensor.ofFloats(BenchModels.randomFloats(12 * 128 * 32, 3), 1, 12, 128, 32));
                ortexFeeds.put("mask", Tensor.ofFloats(new float[128], 1, 1, 1, 128));
                break;
        }
        peers = new Peers(model, threads);
        ortFeeds = RealModels.toOrt(ortexFeeds);
    }
}
