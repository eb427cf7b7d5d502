package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Real models end to end, in Ortex and in ONNX Runtime in the same run (both with their default graph optimizations),
 * on seeded random inputs of the shapes {@code ../shared/models/README.md} gives. The models come from the cache
 * {@code ../shared/models/fetch.sh} fills ({@code ~/.cache/ortex-models}, or the {@code ortex.models} system
 * property). Sampled times give the minimum and the median of single runs, which matter more than the mean on a
 * machine shared with other work.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ModelBenchmark {
    /** The model's folder name in the cache. */
    @Param({"ppocr-v4-det", "oww-embedding"})
    public String model;

    /** Intra-op threads of both runtimes. */
    @Param({"1", "2"})
    public int threads;

    private Peers peers;
    private Map<String, Tensor> ortexFeeds;
    private Map<String, OnnxTensor> ortFeeds;

    /**
     * Opens both sessions on the model.
     *
     * @throws IOException when the model cannot be read
     * @throws OrtException when ONNX Runtime fails to load it
     */
    @Setup(Level.Trial)
    public void open() throws IOException, OrtException {
        Path dir = Path.of(System.getProperty("ortex.models", System.getProperty("user.home") + "/.cache/ortex-models"));
        Path file = dir.resolve(model).resolve("model.onnx");
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + " is missing: run ../shared/models/fetch.sh " + model);
        }
        String input;
        long[] shape;
        switch (model) {
            case "ppocr-v4-det" -> {
                input = "x";
                shape = new long[] {1, 3, 640, 640};
            }
            case "oww-embedding" -> {
                input = "input_1";
                shape = new long[] {1, 76, 32, 1};
            }
            default -> throw new IllegalArgumentException("no input shape known for model " + model);
        }
        peers = new Peers(Files.readAllBytes(file), threads);
        float[] x = BenchModels.randomFloats(Tensor.checkedElementCount(shape), 9);
        ortexFeeds = Map.of(input, Tensor.ofFloats(x, shape));
        ortFeeds = Map.of(input, Peers.ortFloats(x, shape));
    }

    /**
     * Closes both sessions.
     *
     * @throws OrtException when ONNX Runtime fails
     */
    @TearDown(Level.Trial)
    public void close() throws OrtException {
        ortFeeds.values().forEach(OnnxTensor::close);
        peers.close();
    }

    /**
     * Ortex's CPU EP.
     *
     * @return the outputs, so that they are not optimized away
     */
    @Benchmark
    public Object ortex() {
        return peers.runOrtex(ortexFeeds);
    }

    /**
     * ONNX Runtime's CPU EP.
     *
     * @return the first output's element count
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public long onnxRuntime() throws OrtException {
        try (OrtSession.Result r = peers.runOrt(ortFeeds)) {
            return ((OnnxTensor) r.get(0)).getInfo().getNumElements();
        }
    }
}
