package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.ModelWriter;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.runtime.internal.optimizer.ConstantFolding;
import io.ortex.runtime.internal.optimizer.GraphOptimizer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graph optimization step of session creation: reads the level ({@code session.graph_optimization_level}) and
 * the optimizers left out from the session configuration, runs the {@link GraphOptimizer} (constant folding on the
 * session's CPU EP, when the session has it), and saves the result where {@code session.optimized_model_filepath}
 * says.
 */
final class SessionOptimization {
    /** The EP whose kernels fold constants. */
    static final String CPU_EP = "CPUExecutionProvider";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.session");

    private SessionOptimization() {
    }

    /**
     * Optimizes a model for a session.
     *
     * @param model the model as read
     * @param config the session configuration
     * @param bindings the session's EPs
     * @return the optimized model, or {@code model} when the level is {@code DISABLE_ALL} and nothing is saved
     */
    static OnnxModel apply(OnnxModel model, Map<String, String> config, List<EpBinding> bindings) {
        GraphOptimizationLevel level = GraphOptimizationLevel.parse(config.getOrDefault(
                SessionOptions.GRAPH_OPTIMIZATION_LEVEL, SessionOptions.GRAPH_OPTIMIZATION_LEVEL_DEFAULT));
        String target = config.getOrDefault(SessionOptions.OPTIMIZED_MODEL_FILEPATH, "");
        Set<String> disabled = GraphOptimizer.parseDisabled(config.getOrDefault(
                SessionOptions.DISABLE_SPECIFIED_OPTIMIZERS, ""));
        OnnxModel result = model;
        if (level != GraphOptimizationLevel.DISABLE_ALL) {
            EpBinding cpu = bindings.stream().filter(b -> b.factory().name().equals(CPU_EP)).findFirst()
                    .orElse(null);
            ConstantFolding folding = cpu == null ? null : new ConstantFolding(m -> evaluate(m, model, cpu),
                    message -> LOG.debug("{}: {}", model.describe(), message));
            ModelProto optimized = GraphOptimizer.optimize(model.proto(), level, disabled, folding);
            if (optimized != model.proto()) {
                result = ModelReader.rewrite(model, optimized);
            }
        }
        if (!target.isEmpty()) {
            save(result, Path.of(target));
        }
        return result;
    }

    /** Runs the nodes to fold on the CPU EP alone, on the calling thread, and releases the EP. */
    private static Map<String, Tensor> evaluate(ModelProto nodes, OnnxModel source, EpBinding cpu) {
        OnnxModel model = ModelReader.part(source, nodes);
        Map<String, String> config = Map.of(SessionOptions.GRAPH_OPTIMIZATION_LEVEL, "DISABLE_ALL");
        SessionCompiler.Result compiled = SessionCompiler.compile(model, config, List.of(cpu), null);
        try {
            RunArena arena = new RunArena();
            KernelContext context = new KernelContext() {
                @Override
                public int intraOpThreads() {
                    return 1;
                }

                @Override
                public void parallelFor(int count, int minChunk, RangeBody body) {
                    if (count > 0) {
                        body.run(0, count);
                    }
                }
            };
            return compiled.main().run(Map.of(), new ExecutionPlan.Run(context, arena, null));
        } finally {
            compiled.memory().close();
            SessionCompiler.release(compiled.eps());
        }
    }

    /** Writes the optimized model with every initializer's data inside, atomically. */
    private static void save(OnnxModel model, Path target) {
        ModelProto proto = model.proto();
        GraphProto.Builder graph = proto.getGraph().toBuilder();
        boolean external = false;
        for (int i = 0; i < graph.getInitializerCount(); i++) {
            TensorProto t = graph.getInitializer(i);
            if (t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
                external = true;
                ValueView v = model.graph().value(t.getName()).orElseThrow();
                graph.setInitializer(i, TensorCodec.toProto(v.initializer().orElseThrow(), t.getName()));
            }
        }
        ModelProto out = external ? proto.toBuilder().setGraph(graph).build() : proto;
        try {
            ModelWriter.write(out, target);
        } catch (OrtexException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot write the optimized model " + target + ": "
                    + e.getMessage(), e);
        }
    }
}
