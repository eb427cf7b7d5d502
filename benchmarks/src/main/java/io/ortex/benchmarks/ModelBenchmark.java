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
 * One inference of a real model at batch 1, in Ortex (its default CPU EP and optimizations) and in ONNX Runtime (its
 * default optimizations), same inputs, same thread count, same run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ModelBenchmark {
    /** The model, by its folder in the model cache. */
    @Param({"all-minilm-l6-v2", "all-minilm-l6-v2-q", "ppocr-v4-det", "silero-vad-v5", "oww-melspectrogram",
        "oww-embedding"})
    public String model;

    /** Intra-op threads of both runtimes. */
    @Param({"1", "2"})
    public int threads;

    private Peers peers;
    private Map<String, Tensor> ortexFeeds;
    private Map<String, OnnxTensor> ortFeeds;

    /** Opens both sessions. */
    @Setup(Level.Trial)
    public void open() throws OrtException {
        peers = new Peers(RealModels.bytes(model), threads);
        ortexFeeds = RealModels.inputs(model);
        ortFeeds = RealModels.toOrt(ortexFeeds);
    }

    /** Closes both sessions. */
    @TearDown(Level.Trial)
    public void close() throws OrtException {
        ortFeeds.values().forEach(OnnxTensor::close);
        peers.close();
    }

    /**
     * Ortex.
     *
     * @return the outputs
     */
    @Benchmark
    public Object ortex() {
        return peers.runOrtex(ortexFeeds);
    }

    /**
     * ONNX Runtime.
     *
     * @return the number of outputs
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public int onnxRuntime() throws OrtException {
        try (OrtSession.Result r = peers.runOrt(ortFeeds)) {
            return r.size();
        }
    }
}
