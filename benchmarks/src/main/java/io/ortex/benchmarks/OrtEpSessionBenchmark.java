package io.ortex.benchmarks;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
 * Session creation with the ONNX Runtime EP, both ways: from the source model (Ortex reads and partitions it, the EP
 * exports the partition and ONNX Runtime optimizes it) and from the compiled model (the EPContext node holds ONNX
 * Runtime's optimized partition in ORT format, loaded without optimizing again), beside ONNX Runtime's Java API
 * creating a session for the source model directly. Run with
 * {@code java -jar benchmarks/target/benchmarks.jar OrtEpSessionBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class OrtEpSessionBenchmark {
    /** The model's folder in the cache. */
    @Param({"all-minilm-l6-v2", "ppocr-v4-det"})
    public String model;

    private Environment env;
    private List<EpDevice> devices;
    private Path source;
    private Path folder;
    private Path compiled;

    /**
     * Compiles the model once (EPContext, embedded payload) into a temporary folder.
     *
     * @throws IOException when a file fails
     */
    @Setup(Level.Trial)
    public void compile() throws IOException {
        source = RealModels.file(model);
        env = Environment.create();
        devices = env.epDevices().stream().filter(d -> d.epName().equals("OrtExecutionProvider")).toList();
        folder = Files.createTempDirectory("ortex-session-bench");
        compiled = folder.resolve(model + "_ctx.onnx");
        try (Session s = env.createSession(source, options()
                .config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_EMBED_MODE, "1")
                .config(SessionOptions.EP_CONTEXT_FILE_PATH, compiled.toString()))) {
            if (!Files.isRegularFile(compiled)) {
                throw new IllegalStateException("no compiled model written for " + s.id());
            }
        }
    }

    private SessionOptions options() {
        return new SessionOptions().intraOpThreads(2).appendExecutionProvider(devices, Map.of());
    }

    /**
     * Removes the temporary folder.
     *
     * @throws IOException when a file cannot be deleted
     */
    @TearDown(Level.Trial)
    public void close() throws IOException {
        env.close();
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /**
     * Ortex with the ONNX Runtime EP, from the source model.
     *
     * @return the session's id
     */
    @Benchmark
    public String ortexFromSource() {
        try (Session s = env.createSession(source, options())) {
            return s.id();
        }
    }

    /**
     * Ortex with the ONNX Runtime EP, from the compiled model.
     *
     * @return the session's id
     */
    @Benchmark
    public String ortexFromCompiled() {
        try (Session s = env.createSession(compiled, options())) {
            return s.id();
        }
    }

    /**
     * ONNX Runtime's Java API, from the source model.
     *
     * @return the number of inputs
     * @throws OrtException when ONNX Runtime fails
     */
    @Benchmark
    public long onnxRuntime() throws OrtException {
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(2);
            try (OrtSession s = OrtEnvironment.getEnvironment().createSession(source.toString(), o)) {
                return s.getNumInputs();
            }
        }
    }
}
