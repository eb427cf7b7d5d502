package io.ortex.ep.ort;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** Runs a model with ONNX Runtime's Java API directly, the reference the EP's outputs are compared with. */
final class OrtDirect {
    private OrtDirect() {
    }

    /**
     * Runs a model once with ONNX Runtime's default optimizations.
     *
     * @param model the model
     * @param inputs float32 or int64 inputs
     * @param threads intra-op threads
     * @return the outputs by name
     */
    static Map<String, Tensor> run(byte[] model, Map<String, Tensor> inputs, int threads) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Map<String, OnnxTensor> feeds = new HashMap<>();
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(threads);
            try (OrtSession s = env.createSession(model, o)) {
                for (Map.Entry<String, Tensor> e : inputs.entrySet()) {
                    Tensor t = e.getValue();
                    feeds.put(e.getKey(), t.type() == ElementType.FLOAT
                            ? OnnxTensor.createTensor(env, FloatBuffer.wrap(t.floats()), t.shape())
                            : OnnxTensor.createTensor(env, LongBuffer.wrap(t.longs()), t.shape()));
                }
                Map<String, Tensor> out = new LinkedHashMap<>();
                try (OrtSession.Result r = s.run(feeds)) {
                    for (Map.Entry<String, OnnxValue> e : r) {
                        OnnxTensor t = (OnnxTensor) e.getValue();
                        out.put(e.getKey(), Tensor.ofFloats(t.getFloatBuffer().array(), t.getInfo().getShape()));
                    }
                }
                return out;
            }
        } finally {
            feeds.values().forEach(OnnxTensor::close);
        }
    }
}
