package io.ortex.runtime.internal.optimizer;

import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Constant folding: the nodes of the default domain whose inputs are all constant (initializers no caller can
 * override, the enclosing graphs' constant initializers a subgraph reads, or outputs of nodes folded before them)
 * are computed once, when the session is created, and their
 * outputs become initializers. The computing is left to an {@link Evaluator} (the session runs them on the CPU EP's
 * kernels, as ONNX Runtime does), in one batch. Ops that draw random numbers, and ops that only make large tensors
 * out of small ones (ConstantOfShape, Expand, Tile, Range, EyeLike), are not folded; nor are nodes with subgraphs or
 * nodes that write a graph output; nor a DequantizeLinear between constant 8-bit weights and a Conv, MatMul or Gemm
 * whose output is quantized again, directly or through a Relu or Clip (the QDQ pattern EPs run as integer products).
 * When the evaluation fails the graph is left as it was.
 */
public final class ConstantFolding {
    /** Ops that expand a small input into a large output: computing them at run time costs less memory. */
    static final Set<String> EXPANDING = Set.of("ConstantOfShape", "Expand", "Tile", "Range", "EyeLike");
    /** Folded results larger than this stay computed at run time. */
    static final long MAX_FOLDED_ELEMENTS = 1L << 24;

    /** Computes a model whose inputs are all initializers. */
    @FunctionalInterface
    public interface Evaluator {
        /**
         * Runs a model that has no graph inputs.
         *
         * @param model the model: the nodes to fold, the initializers they read, their needed outputs as graph
         *     outputs
         * @return the outputs by name
         */
        Map<String, Tensor> run(ModelProto model);
    }

    private final Evaluator evaluator;
    private final Consumer<String> log;

    /**
     * Creates the pass.
     *
     * @param evaluator computes the folded nodes
     * @param log told, in one line, why folding was skipped
     */
    public ConstantFolding(Evaluator evaluator, Consumer<String> log) {
        this.evaluator = evaluator;
        this.log = log;
    }

    /**
     * Folds what can be folded in one graph.
     *
     * @param g the graph
     * @param source the model, for its opsets
     * @param outerConstants the constant initializers of the enclosing graphs (empty for the main graph), read by
     *     name where the graph does not define the name itself
     */
    void fold(MainGraph g, ModelProto source, Map<String, TensorProto> outerConstants) {
        g.applyRenames();
        List<NodeProto> nodes = g.nodes();
        Set<String> constant = new HashSet<>();
        for (String name : g.initializers().keySet()) {
            if (g.isConstant(name)) {
                constant.add(name);
            }
        }
        Map<String, TensorProto> outer = new HashMap<>();
        if (!outerConstants.isEmpty()) {
            Set<String> local = new HashSet<>(g.initializers().keySet());
            for (NodeProto n : nodes) {
                if (n != null) {
                    local.addAll(n.getOutputList());
                }
            }
            outerConstants.forEach((name, t) -> {
                if (!local.contains(name) && !g.isGraphInput(name)) {
                    outer.put(name, t);
                    constant.add(name);
                }
            });
        }
        List<Integer> folded = new ArrayList<>();
        Set<String> needed = new LinkedHashSet<>();
        Map<String, List<NodeProto>> readers = readers(nodes);
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            if (n == null || !foldable(n, g, constant) || dequantizesIntoQdqProduct(n, g, readers)) {
                continue;
            }
            folded.add(i);
            for (String in : n.getInputList()) {
                if (!in.isEmpty() && (g.initializers().containsKey(in) || outer.containsKey(in))) {
                    needed.add(in);
                }
            }
            for (String out : n.getOutputList()) {
                if (!out.isEmpty()) {
                    constant.add(out);
                }
            }
        }
        if (folded.isEmpty()) {
            return;
        }
        Set<String> foldedOutputs = new HashSet<>();
        Set<Integer> foldedSet = new HashSet<>(folded);
        folded.forEach(i -> nodes.get(i).getOutputList().forEach(foldedOutputs::add));
        Set<String> wanted = new LinkedHashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            if (n != null && !foldedSet.contains(i)) {
                for (String in : n.getInputList()) {
                    if (foldedOutputs.contains(in)) {
                        wanted.add(in);
                    }
                }
            }
        }
        for (String out : foldedOutputs) {
            if (g.isPinned(out)) {
                wanted.add(out);
            }
        }
        if (!wanted.isEmpty()) {
            GraphProto.Builder mini = GraphProto.newBuilder().setName("constant_folding");
            needed.forEach(name -> mini.addInitializer(g.initializers().containsKey(name) ? g.initializers().get(name)
                    : outer.get(name)));
            folded.forEach(i -> mini.addNode(nodes.get(i)));
            wanted.forEach(name -> mini.addOutput(ValueInfoProto.newBuilder().setName(name)));
            Map<String, Tensor> results;
            try {
                results = evaluator.run(source.toBuilder().clearMetadataProps().setGraph(mini).build());
            } catch (RuntimeException e) {
                log.accept("constant folding skipped: " + e.getMessage());
                return;
            }
            for (String name : wanted) {
                Tensor t = results.get(name);
                if (t == null || t.size() > MAX_FOLDED_ELEMENTS) {
                    log.accept("constant folding skipped: '" + name + "' " + (t == null ? "was not computed"
                            : "has " + t.size() + " elements"));
                    return;
                }
            }
            for (String name : wanted) {
                TensorProto proto = TensorCodec.toProto(results.get(name), name);
                g.initializers().put(name, proto);
            }
        }
        folded.forEach(i -> g.set(i, null));
    }

    /** The nodes of a graph that read each value (subgraphs' implicit reads are not counted). */
    private static Map<String, List<NodeProto>> readers(List<NodeProto> nodes) {
        Map<String, List<NodeProto>> readers = new HashMap<>();
        for (NodeProto n : nodes) {
            if (n != null) {
                for (String in : n.getInputList()) {
                    if (!in.isEmpty()) {
                        readers.computeIfAbsent(in, k -> new ArrayList<>()).add(n);
                    }
                }
            }
        }
        return readers;
    }

    /**
     * Whether a node is a DequantizeLinear whose output only a Conv, MatMul or Gemm reads, itself read only by a
     * QuantizeLinear (directly or through a Relu or Clip): the QDQ pattern an EP may run as one integer product, which
     * needs the 8-bit weights rather than their float values (ONNX Runtime leaves DequantizeLinear unfolded for the
     * same reason).
     */
    private static boolean dequantizesIntoQdqProduct(NodeProto n, MainGraph g, Map<String, List<NodeProto>> readers) {
        if (!n.getOpType().equals("DequantizeLinear") || n.getOutputCount() != 1 || n.getOutput(0).isEmpty()) {
            return false;
        }
        List<NodeProto> product = readers.getOrDefault(n.getOutput(0), List.of());
        if (product.size() != 1 || !MainGraph.isDefaultDomain(product.get(0))
                || !Set.of("Conv", "MatMul", "Gemm").contains(product.get(0).getOpType())
                || product.get(0).getOutputCount() != 1 || g.isGraphOutput(product.get(0).getOutput(0))) {
            return false;
        }
        List<NodeProto> quantize = readers.getOrDefault(product.get(0).getOutput(0), List.of());
        if (quantize.size() == 1 && MainGraph.isDefaultDomain(quantize.get(0))
                && Set.of("Relu", "Clip").contains(quantize.get(0).getOpType())
                && quantize.get(0).getOutputCount() == 1 && !g.isGraphOutput(quantize.get(0).getOutput(0))) {
            // an activation between the product and its quantization belongs to the pattern too
            quantize = readers.getOrDefault(quantize.get(0).getOutput(0), List.of());
        }
        return quantize.size() == 1 && MainGraph.isDefaultDomain(quantize.get(0))
                && quantize.get(0).getOpType().equals("QuantizeLinear");
    }

    private static boolean foldable(NodeProto n, MainGraph g, Set<String> constant) {
        if (!MainGraph.isDefaultDomain(n) || MainGraph.hasSubgraphs(n)
                || GraphOptimizer.NONDETERMINISTIC.contains(n.getOpType()) || EXPANDING.contains(n.getOpType())) {
            return false;
        }
        boolean anyInput = false;
        for (String in : n.getInputList()) {
            if (in.isEmpty()) {
                continue;
            }
            if (!constant.contains(in)) {
                return false;
            }
            anyInput = true;
        }
        if (!anyInput) {
            return false;
        }
        for (String out : n.getOutputList()) {
            if (g.isGraphOutput(out)) {
                return false;
            }
        }
        return true;
    }
}
