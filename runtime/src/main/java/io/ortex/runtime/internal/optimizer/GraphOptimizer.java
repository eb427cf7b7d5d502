package io.ortex.runtime.internal.optimizer;

import io.ortex.api.GraphOptimizationLevel;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The runtime's graph optimizer: EP-agnostic rewrites of a model's graphs (nested subgraphs first, then the main
 * graph) before they are partitioned, each a named
 * optimizer of a {@link GraphOptimizationLevel} that {@code optimization.disable_specified_optimizers} can leave
 * out. The result is a valid ONNX model with the same inputs, outputs and semantics. Every pass is linear in the
 * graph's size. Stateless.
 */
public final class GraphOptimizer {
    /** Constant nodes become initializers. */
    public static final String CONSTANT_TO_INITIALIZER = "ConstantToInitializer";
    /** Identity nodes go. */
    public static final String IDENTITY_ELIMINATION = "IdentityElimination";
    /** Equal small initializers and equal nodes are kept once. */
    public static final String COMMON_SUBEXPRESSION_ELIMINATION = "CommonSubexpressionElimination";
    /** Nodes of constant inputs are computed once. */
    public static final String CONSTANT_FOLDING = "ConstantFolding";
    /** Nodes nothing reads go. */
    public static final String DEAD_NODE_ELIMINATION = "DeadNodeElimination";

    /** Every optimizer this class runs, by name. */
    public static final Set<String> NAMES = Set.of(CONSTANT_TO_INITIALIZER, IDENTITY_ELIMINATION,
            COMMON_SUBEXPRESSION_ELIMINATION, CONSTANT_FOLDING, DEAD_NODE_ELIMINATION);

    /** Initializers up to this size are compared by content. */
    static final int DEDUPLICATED_INITIALIZER_BYTES = 4096;

    /** Ops whose results vary from run to run, never merged or folded. */
    static final Set<String> NONDETERMINISTIC = Set.of("RandomNormal", "RandomUniform", "RandomNormalLike",
            "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout");

    private GraphOptimizer() {
    }

    /**
     * Optimizes a model.
     *
     * @param model the model
     * @param level how much to optimize
     * @param disabled names of optimizers to leave out
     * @param folding computes constant nodes, or {@code null} to fold nothing
     * @return the optimized model, or {@code model} itself when nothing was to be done
     */
    public static ModelProto optimize(ModelProto model, GraphOptimizationLevel level, Set<String> disabled,
                                      ConstantFolding folding) {
        if (level == GraphOptimizationLevel.DISABLE_ALL) {
            return model;
        }
        return model.toBuilder().setGraph(optimizeGraph(model.getGraph(), model, disabled, folding, Map.of()))
                .build();
    }

    /**
     * Optimizes the nested subgraphs of a graph first, then the graph itself. A graph's Constant nodes become
     * initializers before its subgraphs are optimized, so that a subgraph can fold the nodes that read them (weights
     * that an exporter kept in an enclosing branch and sliced inside a nested one, as in an LSTM under an If).
     *
     * @param outerConstants the constant initializers of the enclosing graphs, by name
     */
    private static GraphProto optimizeGraph(GraphProto graph, ModelProto model, Set<String> disabled,
                                            ConstantFolding folding, Map<String, TensorProto> outerConstants) {
        boolean nested = graph.getNodeList().stream().anyMatch(MainGraph::hasSubgraphs);
        if (nested && !disabled.contains(CONSTANT_TO_INITIALIZER)) {
            MainGraph first = new MainGraph(graph);
            constantsToInitializers(first);
            graph = first.build();
        }
        Map<String, TensorProto> visible = nested ? visibleConstants(graph, outerConstants) : Map.of();
        GraphProto.Builder withSubgraphs = graph.toBuilder();
        for (int i = 0; i < withSubgraphs.getNodeCount(); i++) {
            NodeProto n = withSubgraphs.getNode(i);
            if (!MainGraph.hasSubgraphs(n)) {
                continue;
            }
            NodeProto.Builder b = n.toBuilder();
            for (int a = 0; a < b.getAttributeCount(); a++) {
                AttributeProto attr = b.getAttribute(a);
                if (attr.hasG()) {
                    b.setAttribute(a, attr.toBuilder().setG(optimizeGraph(attr.getG(), model, disabled, folding,
                            visible)));
                } else if (attr.getGraphsCount() > 0) {
                    AttributeProto.Builder ab = attr.toBuilder();
                    for (int k = 0; k < ab.getGraphsCount(); k++) {
                        ab.setGraphs(k, optimizeGraph(ab.getGraphs(k), model, disabled, folding, visible));
                    }
                    b.setAttribute(a, ab);
                }
            }
            withSubgraphs.setNode(i, b);
        }
        MainGraph g = new MainGraph(withSubgraphs.build());
        if (!disabled.contains(CONSTANT_TO_INITIALIZER)) {
            constantsToInitializers(g);
        }
        if (!disabled.contains(IDENTITY_ELIMINATION)) {
            eliminateIdentities(g);
        }
        if (!disabled.contains(COMMON_SUBEXPRESSION_ELIMINATION)) {
            deduplicateInitializers(g);
            eliminateCommonSubexpressions(g);
        }
        if (!disabled.contains(CONSTANT_FOLDING) && folding != null) {
            folding.fold(g, model, outerConstants);
        }
        GraphProto.Builder out = g.build().toBuilder();
        if (!disabled.contains(DEAD_NODE_ELIMINATION)) {
            BasicGraphOptimizer.removeDeadNodes(out);
        }
        return out.build();
    }

    /**
     * The constant initializers a graph's subgraphs can read: the enclosing graphs', then the graph's own (an
     * initializer that is also a graph input is not constant), less the names the graph defines otherwise.
     */
    private static Map<String, TensorProto> visibleConstants(GraphProto graph, Map<String, TensorProto> outer) {
        Map<String, TensorProto> visible = new HashMap<>(outer);
        Set<String> inputs = new HashSet<>();
        graph.getInputList().forEach(v -> inputs.add(v.getName()));
        for (TensorProto t : graph.getInitializerList()) {
            if (!inputs.contains(t.getName())) {
                visible.put(t.getName(), t);
            }
        }
        inputs.forEach(visible::remove);
        for (NodeProto n : graph.getNodeList()) {
            n.getOutputList().forEach(visible::remove);
        }
        return visible;
    }

    /**
     * Parses {@code optimization.disable_specified_optimizers}.
     *
     * @param value names separated by commas
     * @return the names
     * @throws io.ortex.api.InvalidArgumentException when a name is unknown
     */
    public static Set<String> parseDisabled(String value) {
        Set<String> out = new TreeSet<>();
        for (String part : value.split(",")) {
            String name = part.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!NAMES.contains(name) && !name.equals("CpuFusions")) {
                Set<String> known = new TreeSet<>(NAMES);
                known.add("CpuFusions");
                throw new io.ortex.api.InvalidArgumentException("optimization.disable_specified_optimizers: unknown "
                        + "optimizer '" + name + "'; known: " + known);
            }
            out.add(name);
        }
        return out;
    }

    /** Constant nodes of the default domain become initializers named as their output. */
    static void constantsToInitializers(MainGraph g) {
        List<NodeProto> nodes = g.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            if (n == null || !n.getOpType().equals("Constant") || !MainGraph.isDefaultDomain(n)
                    || n.getOutputCount() != 1 || n.getAttributeCount() != 1) {
                continue;
            }
            String out = n.getOutput(0);
            if (out.isEmpty() || g.isGraphOutput(out) || g.isGraphInput(out) || g.initializers().containsKey(out)) {
                continue;
            }
            TensorProto t = tensorOf(n.getAttribute(0), out);
            if (t != null) {
                g.initializers().put(out, t);
                g.set(i, null);
            }
        }
    }

    /** The tensor a Constant's attribute holds, named, or {@code null} for a form that stays a node. */
    private static TensorProto tensorOf(AttributeProto a, String name) {
        if (!a.getRefAttrName().isEmpty()) {
            return null;
        }
        TensorProto.Builder t = TensorProto.newBuilder().setName(name);
        switch (a.getName()) {
            case "value":
                return a.hasT() ? a.getT().toBuilder().setName(name).build() : null;
            case "value_float":
                return t.setDataType(TensorProto.DataType.FLOAT_VALUE).addFloatData(a.getF()).build();
            case "value_floats":
                return t.setDataType(TensorProto.DataType.FLOAT_VALUE).addDims(a.getFloatsCount())
                        .addAllFloatData(a.getFloatsList()).build();
            case "value_int":
                return t.setDataType(TensorProto.DataType.INT64_VALUE).addInt64Data(a.getI()).build();
            case "value_ints":
                return t.setDataType(TensorProto.DataType.INT64_VALUE).addDims(a.getIntsCount())
                        .addAllInt64Data(a.getIntsList()).build();
            case "value_string":
                return t.setDataType(TensorProto.DataType.STRING_VALUE).addStringData(a.getS()).build();
            case "value_strings":
                return t.setDataType(TensorProto.DataType.STRING_VALUE).addDims(a.getStringsCount())
                        .addAllStringData(a.getStringsList()).build();
            default:
                return null;
        }
    }

    /**
     * Identity nodes go: their readers read the Identity's input. One that writes a graph output from a value some
     * node produces makes that node write the graph output instead; one between a graph input and output stays.
     */
    static void eliminateIdentities(MainGraph g) {
        List<NodeProto> nodes = g.nodes();
        Map<String, Integer> producer = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            if (n != null) {
                for (String out : n.getOutputList()) {
                    producer.put(out, i);
                }
            }
        }
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            if (n == null || !n.getOpType().equals("Identity") || !MainGraph.isDefaultDomain(n)
                    || n.getInputCount() != 1 || n.getOutputCount() != 1 || n.getInput(0).isEmpty()
                    || n.getOutput(0).isEmpty()) {
                continue;
            }
            String in = g.resolve(n.getInput(0));
            String out = n.getOutput(0);
            if (g.isPinned(out) || g.isPinned(in)) {
                continue;
            }
            if (!g.isGraphOutput(out)) {
                g.rename(out, in);
                g.set(i, null);
                continue;
            }
            Integer p = producer.get(in);
            if (p == null || g.isGraphOutput(in) || g.isGraphInput(in) || g.initializers().containsKey(in)
                    || nodes.get(p) == null) {
                continue;
            }
            // the producer writes the graph output directly; the other readers of its old output follow
            NodeProto prod = nodes.get(p);
            NodeProto.Builder b = prod.toBuilder();
            for (int k = 0; k < prod.getOutputCount(); k++) {
                if (prod.getOutput(k).equals(in)) {
                    b.setOutput(k, out);
                }
            }
            g.set(p, b.build());
            producer.put(out, p);
            g.rename(in, out);
            g.set(i, null);
        }
        g.applyRenames();
    }

    /** Small initializers with equal type, shape and content are kept once. */
    static void deduplicateInitializers(MainGraph g) {
        Map<String, String> byContent = new HashMap<>();
        List<String> duplicates = new ArrayList<>();
        for (TensorProto t : g.initializers().values()) {
            String name = t.getName();
            if (!g.isConstant(name) || g.isGraphOutput(name) || g.isPinned(name)
                    || t.getDataLocation() == TensorProto.DataLocation.EXTERNAL
                    || t.getSerializedSize() > DEDUPLICATED_INITIALIZER_BYTES) {
                continue;
            }
            String key = Base64Key.of(t.toBuilder().setName("").clearDocString().build().toByteArray());
            String first = byContent.putIfAbsent(key, name);
            if (first != null) {
                g.rename(name, first);
                duplicates.add(name);
            }
        }
        duplicates.forEach(g.initializers()::remove);
        g.applyRenames();
    }

    /**
     * A node of the default domain with the same op, attributes and (renamed) inputs as an earlier one is replaced by
     * it: its readers read the earlier node's outputs.
     */
    static void eliminateCommonSubexpressions(MainGraph g) {
        List<NodeProto> nodes = g.nodes();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            NodeProto n = nodes.get(i);
            if (n == null) {
                continue;
            }
            n = g.resolved(n);
            g.set(i, n);
            if (!MainGraph.isDefaultDomain(n) || MainGraph.hasSubgraphs(n) || NONDETERMINISTIC.contains(n.getOpType())
                    || n.getOutputList().stream().anyMatch(o -> g.isGraphOutput(o) || g.isPinned(o))) {
                continue;
            }
            String key = key(n);
            Integer first = seen.putIfAbsent(key, i);
            if (first == null) {
                continue;
            }
            NodeProto kept = nodes.get(first);
            for (int k = 0; k < n.getOutputCount(); k++) {
                if (!n.getOutput(k).isEmpty()) {
                    if (kept.getOutput(k).isEmpty()) {
                        // the earlier node does not write this optional output: keep this node after all
                        seen.put(key, first);
                        n = null;
                        break;
                    }
                }
            }
            if (n == null) {
                continue;
            }
            for (int k = 0; k < n.getOutputCount(); k++) {
                if (!n.getOutput(k).isEmpty()) {
                    g.rename(n.getOutput(k), kept.getOutput(k));
                }
            }
            g.set(i, null);
        }
        g.applyRenames();
    }

    private static String key(NodeProto n) {
        StringBuilder b = new StringBuilder();
        b.append(n.getOpType().length()).append(':').append(n.getOpType()).append('|').append(n.getOutputCount())
                .append('|');
        for (String in : n.getInputList()) {
            b.append(in.length()).append(':').append(in);
        }
        b.append('|');
        List<AttributeProto> attrs = new ArrayList<>(n.getAttributeList());
        attrs.sort((x, y) -> x.getName().compareTo(y.getName()));
        for (AttributeProto a : attrs) {
            b.append(Base64Key.of(a.toByteArray())).append(',');
        }
        return b.toString();
    }

    /** Turns bytes into a map key. */
    static final class Base64Key {
        private Base64Key() {
        }

        static String of(byte[] bytes) {
            return bytes.length + "/" + Arrays.hashCode(bytes) + "/" + java.util.Base64.getEncoder()
                    .encodeToString(bytes);
        }
    }
}
