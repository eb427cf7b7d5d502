package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Tensor;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A benchmark of one model in Ortex and in ONNX Runtime side by side: a subclass's {@code @Setup} opens both
 * sessions ({@link #peers}) and sets the same inputs for each; the two benchmark methods run one session each, and
 * the trial's end closes them.
 */
@State(Scope.Benchmark)
public abstract class PeerBenchmark {
    /** Both sessions, opened by the subclass. */
    protected Peers peers;
    /** Ortex's inputs. */
    protected Map<String, Tensor> ortexFeeds;
    /** ONNX Runtime's inputs, the same values. */
    protected Map<String, OnnxTensor> ortFeeds;

    /** Closes both sessions and ONNX Runtime's inputs. */
    @TearDown(Level.Trial)
    public void close() throws OrtException {
        ortFeeds.values().forEach(OnnxTensor::close);
        peers.close();
    }

    /**
     * Ortex.
     *
     * @return the outputs, so that the run is not optimized away
     */
    @Benchmark
    public Object ortex() {
        return peers.runOrtex(ortexFeeds);
    }

    /**
     * ONNX Runtime. Its outputs stay in native memory: copying them into Java arrays is no part of a run.
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
