package io.ortex.ep.cpu;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import io.ortex.testing.ModelRunner;
import io.ortex.testing.OneNodeModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Runs small models straight through the CPU EP's kernels, node by node in topological order, for the kernel unit
 * tests. The runtime's executor is tested on its own; this keeps kernel tests independent of it. It is this module's
 * {@link ModelRunner} (see {@code META-INF/services}), so the shared one-node models run through it too.
 */
public final class KernelHarness {
    /** The harness as the test fixtures' model runner. */
    public static final class Runner implements ModelRunner {
        /** Creates the runner. */
        public Runner() {
        }

        @Override
        public Map<String, Tensor> run(Onnx.ModelProto model, Map<String, Tensor> inputs) {
            return KernelHarness.run(model, inputs);
        }
    }

    private static final OpRegistry REGISTRY = new CpuEpFactory().registry();

    /** A sequential kernel context that runs nested subgraphs node by node, as this harness runs models. */
    public static final KernelContext SEQUENTIAL = new KernelContext() {
        @Override
        public int intraOpThreads() {
            return 1;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            body.run(0, count);
        }

        @Override
        public Map<String, Tensor> runSubgraph(GraphView subgraph, Map<String, Tensor> values) {
            return runGraph(subgraph, values);
        }
    };

    /** A context that really splits the work over four threads, to check kernels under parallelFor. */
    public static final KernelContext PARALLEL = new KernelContext() {
        @Override
        public int intraOpThreads() {
            return 4;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            int chunks = Math.max(1, Math.min(4, count / Math.max(1, minChunk)));
            IntStream.range(0, chunks).parallel().forEach(c -> body.run((int) ((long) count * c / chunks),
                    (int) ((long) count * (c + 1) / chunks)));
        }
    };

    /**
     * A context that cuts every loop into up to three chunks, whatever its minimum chunk, and runs them on the common
     * pool, as the runtime's intra-op threads would.
     */
    public static final KernelContext COMMON_POOL = new KernelContext() {
        @Override
        public int intraOpThreads() {
            return 3;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            int chunks = Math.max(1, Math.min(3, count));
            ForkJoinPool.commonPool().submit(() -> IntStream.range(0, chunks).parallel().forEach(c ->
                    body.run(count * c / chunks, count * (c + 1) / chunks))).join();
        }
    };

    private KernelHarness() {
    }

    /**
     * Makes a context whose uninitialized float memory is full of NaN, so an element a kernel forgets to write shows.
     * It splits a loop over up to {@code threads} chunks on the common pool (respecting the minimum chunk) and runs a
     * loop of one chunk on the calling thread.
     *
     * @param threads the most chunks a loop is split into
     * @return the context
     */
    public static KernelContext nanFilled(int threads) {
        return new KernelContext() {
            @Override
            public int intraOpThreads() {
                return threads;
            }

            @Override
            public void parallelFor(int count, int minChunk, RangeBody body) {
                int chunks = Math.max(1, Math.min(threads, count / Math.max(1, minChunk)));
                if (chunks == 1) {
                    body.run(0, count);
                    return;
                }
                ForkJoinPool.commonPool().submit(() -> IntStream.range(0, chunks).parallel().forEach(c ->
                        body.run((int) ((long) count * c / chunks), (int) ((long) count * (c + 1) / chunks))))
                        .join();
            }

            @Override
            public Tensor allocateUninitialized(ElementType type, long... shape) {
                Tensor t = Tensor.zeros(type, shape);
                Arrays.fill(t.floats(), Float.NaN);
                return t;
            }
        };
    }

    /**
     * Runs the kernel of a one-node model of the ONNX domain straight with the {@link #PARALLEL} context: the model
     * is {@link OneNodeModel#of(String, int, Tensor[], int[], Onnx.AttributeProto...)}'s, so the kernel sees the
     * inputs in {@code constants} as constant initializers, and it is given all of {@code inputs}.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs in order, null for an omitted optional input
     * @param constants the positions of the inputs held by constant initializers
     * @param attrs the attributes
     * @return the kernel's first output
     */
    public static Tensor runParallel(String op, int opset, Tensor[] inputs, int[] constants,
            Onnx.AttributeProto... attrs) {
        Onnx.ModelProto model = OneNodeModel.of(op, opset, inputs, constants, attrs).model();
        NodeView node = ModelReader.read(model.toByteArray(), null).graph().nodes().get(0);
        return REGISTRY.lookup(node).create(node).run(inputs, PARALLEL)[0];
    }

    /**
     * Runs a model given as a message.
     *
     * @param model the model
     * @param inputs graph inputs by name
     * @return graph outputs by name
     */
    public static Map<String, Tensor> run(Onnx.ModelProto model, Map<String, Tensor> inputs) {
        return run(ModelReader.read(model.toByteArray(), null), inputs);
    }

    /**
     * Runs a loaded model.
     *
     * @param model the model
     * @param inputs graph inputs by name
     * @return graph outputs by name
     */
    public static Map<String, Tensor> run(OnnxModel model, Map<String, Tensor> inputs) {
        return runGraph(model.graph(), inputs);
    }

    /**
     * Runs one graph node by node; a control-flow node gets its implicit inputs after its inputs, as the CPU EP's
     * adapter passes them, and a context whose {@link KernelContext#runSubgraph} runs nested graphs the same way.
     */
    private static Map<String, Tensor> runGraph(GraphView graph, Map<String, Tensor> inputs) {
        Map<String, Tensor> values = new HashMap<>(inputs);
        for (ValueView init : graph.initializers()) {
            values.putIfAbsent(init.name(), init.initializer().orElseThrow());
        }
        for (NodeView node : graph.nodes()) {
            KernelFactory f = REGISTRY.lookup(node);
            if (f == null) {
                throw new IllegalStateException("no kernel for " + node.opType());
            }
            CpuKernel k = f.create(node);
            List<ValueView> reads = new ArrayList<>(node.inputs());
            reads.addAll(node.implicitInputs());
            Tensor[] in = new Tensor[reads.size()];
            for (int i = 0; i < in.length; i++) {
                ValueView v = reads.get(i);
                in[i] = v == null ? null : values.get(v.name());
            }
            Tensor[] out = k.run(in, SEQUENTIAL);
            for (int i = 0; i < node.outputs().size() && i < out.length; i++) {
                ValueView v = node.outputs().get(i);
                if (v != null && out[i] != null) {
                    values.put(v.name(), out[i]);
                }
            }
        }
        Map<String, Tensor> result = new LinkedHashMap<>();
        for (ValueView o : graph.outputs()) {
            result.put(o.name(), values.get(o.name()));
        }
        return result;
    }

    /**
     * Runs one case folder of ONNX's backend node tests and returns expected and actual outputs in graph order.
     *
     * @param caseDir the folder with {@code model.onnx} and {@code test_data_set_0}
     * @return pairs of (expected, actual)
     * @throws IOException when a file cannot be read
     */
    public static List<Tensor[]> runCase(Path caseDir) throws IOException {
        OnnxModel model = ModelReader.read(caseDir.resolve("model.onnx"));
        Path data = caseDir.resolve("test_data_set_0");
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        List<ValueView> graphInputs = new ArrayList<>();
        for (ValueView v : model.graph().inputs()) {
            if (!v.isInitializer()) {
                graphInputs.add(v);
            }
        }
        for (int i = 0; i < graphInputs.size(); i++) {
            Path f = data.resolve("input_" + i + ".pb");
            if (Files.exists(f)) {
                inputs.put(graphInputs.get(i).name(), readTensor(f));
            }
        }
        Map<String, Tensor> actual = run(model, inputs);
        List<Tensor[]> pairs = new ArrayList<>();
        int i = 0;
        for (Map.Entry<String, Tensor> e : actual.entrySet()) {
            pairs.add(new Tensor[] {readTensor(data.resolve("output_" + i + ".pb")), e.getValue()});
            i++;
        }
        return pairs;
    }

    /**
     * Reads a {@code TensorProto} file.
     *
     * @param file the file
     * @return the tensor
     * @throws IOException when it cannot be read
     */
    public static Tensor readTensor(Path file) throws IOException {
        return TensorCodec.fromProto(Onnx.TensorProto.parseFrom(Files.readAllBytes(file)));
    }
}
