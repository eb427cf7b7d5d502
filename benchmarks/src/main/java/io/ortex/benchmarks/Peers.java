package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Environment;
import io.ortex.api.RunOptions;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Map;

/**
 * One model opened side by side in Ortex and in ONNX Runtime, with the same thread count, so a benchmark times both
 * in the same run. ONNX Runtime runs with its default optimizations (what its users get).
 */
final class Peers implements AutoCloseable {
    private static final RunOptions RUN_OPTIONS = new RunOptions();
    private final Environment ortexEnv;
    private final Session ortex;
    private final OrtSession ort;

    Peers(byte[] model, int threads) throws OrtException {
        ortexEnv = Environment.create();
        ortex = ortexEnv.createSession(model, new SessionOptions().intraOpThreads(threads));
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(threads);
            o.setInterOpNumThreads(1);
            ort = OrtEnvironment.getEnvironment().createSession(model, o);
        }
    }

    Map<String, Tensor> runOrtex(Map<String, Tensor> feeds) {
        return ortex.run(feeds);
    }

    OrtSession.Result runOrt(Map<String, OnnxTensor> feeds) throws OrtException {
        return ort.run(feeds);
    }

    /** Runs Ortex writing the outputs into the caller's tensors. */
    Map<String, Tensor> runOrtex(Map<String, Tensor> feeds, Map<String, Tensor> pinned) {
        return ortex.run(feeds, pinned, RUN_OPTIONS);
    }

    /** Runs ONNX Runtime writing the outputs into the caller's tensors (its pinned outputs). */
    OrtSession.Result runOrt(Map<String, OnnxTensor> feeds, Map<String, OnnxTensor> pinned) throws OrtException {
        return ort.run(feeds, pinned);
    }

    /**
     * Makes an ONNX Runtime tensor over new direct memory, which a run can write into (a pinned output).
     *
     * @param shape the dimensions
     * @return the tensor, zeroed
     * @throws OrtException when ONNX Runtime refuses it
     */
    static OnnxTensor ortOutputFloats(long... shape) throws OrtException {
        long count = 1;
        for (long d : shape) {
            count *= d;
        }
        FloatBuffer direct = ByteBuffer.allocateDirect(Math.toIntExact(count * Float.BYTES))
                .order(ByteOrder.nativeOrder()).asFloatBuffer();
        return OnnxTensor.createTensor(OrtEnvironment.getEnvironment(), direct, shape);
    }

    static OnnxTensor ortFloats(float[] data, long... shape) throws OrtException {
        return OnnxTensor.createTensor(OrtEnvironment.getEnvironment(), FloatBuffer.wrap(data), shape);
    }

    @Override
    public void close() throws OrtException {
        ortex.close();
        ortexEnv.close();
        ort.close();
    }
}
