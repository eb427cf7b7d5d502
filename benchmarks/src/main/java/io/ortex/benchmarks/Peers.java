package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.FloatBuffer;
import java.util.Map;

/**
 * One model opened side by side in Ortex and in ONNX Runtime, with the same thread count, so a benchmark times both
 * in the same run. ONNX Runtime runs with its default optimizations (what its users get).
 */
final class Peers implements AutoCloseable {
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
