package io.ortex.testing;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.ModelProto;
import java.util.Iterator;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Runs the models tests build ({@link OneNodeModel}, {@link OneNode}). A test module may provide one through
 * {@code META-INF/services/io.ortex.testing.ModelRunner} (the CPU EP's kernel tests run the kernels straight, without
 * the runtime); without one, models run in a session of an {@link Environment} (the runtime, when it is on the test
 * class path).
 */
public interface ModelRunner {
    /**
     * Runs a model once.
     *
     * @param model the model
     * @param inputs the graph inputs by name
     * @return the graph outputs by name, in graph order
     */
    Map<String, Tensor> run(ModelProto model, Map<String, Tensor> inputs);

    /**
     * Gets the runner of this class path: the first one provided, else a session of a new environment per run.
     *
     * @return the runner
     */
    static ModelRunner current() {
        Iterator<ModelRunner> provided = ServiceLoader.load(ModelRunner.class, ModelRunner.class.getClassLoader())
                .iterator();
        if (provided.hasNext()) {
            return provided.next();
        }
        return (model, inputs) -> {
            try (Environment env = Environment.create();
                 Session s = env.createSession(model.toByteArray(), new SessionOptions().intraOpThreads(1))) {
                return s.run(inputs);
            }
        };
    }
}
