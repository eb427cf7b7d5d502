package io.ortex.benchmarks;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
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

/** Creating (and closing) a session for a real model file, in Ortex and in ONNX Runtime, same thread count. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SessionCreateBenchmark {
    /** The model, by its folder in the model cache. */
    @Param({"all-minilm-l6-v2", "ppocr-v4-det", "silero-vad-v5", "oww-embedding"})
    public String model;

    private Environment env;
    private String path;

    /** Opens Ortex's environment. */
    @Setup(Level.Trial)
    public void open() {
        env = Environment.create();
        path = RealModels.file(model).toString();
    }

    /** Closes it. */
    @TearDown(Level.Trial)
    public void close() {
        env.close();
    }

    /**
     * Ortex: read, optimize, partition, compile.
     *
     * @return the session's EP count
     */
    @Benchmark
    public int ortex() {
        try (Session s = env.createSession(java.nio.file.Path.of(path), new SessionOptions().intraOpThreads(2))) {
            return s.executionProviders().size();
        }
    }

    /**
     * ONNX Runtime, default optimizations.
     *
     * @return the number of inputs
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public int onnxRuntime() throws OrtException {
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(2);
            try (OrtSession s = OrtEnvironment.getEnvironment().createSession(path, o)) {
                return (int) s.getNumInputs();
            }
        }
    }
}
