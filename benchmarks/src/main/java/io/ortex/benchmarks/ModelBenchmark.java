package io.ortex.benchmarks;

import ai.onnxruntime.OrtException;
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
 * One inference of a real model at batch 1, in Ortex (its default CPU EP and optimizations) and in ONNX Runtime (its
 * default optimizations), same inputs, same thread count, same run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ModelBenchmark extends PeerBenchmark {
    /** The model, by its folder in the model cache. */
    @Param({"all-minilm-l6-v2", "all-minilm-l6-v2-q", "ppocr-v4-det", "silero-vad-v5", "oww-melspectrogram",
        "oww-embedding"})
    public String model;

    /** Intra-op threads of both runtimes. */
    @Param({"1", "2"})
    public int threads;

    /** Opens both sessions. */
    @Setup(Level.Trial)
    public void open() throws OrtException {
        peers = new Peers(RealModels.bytes(model), threads);
        ortexFeeds = RealModels.inputs(model);
        ortFeeds = RealModels.toOrt(ortexFeeds);
    }
}
