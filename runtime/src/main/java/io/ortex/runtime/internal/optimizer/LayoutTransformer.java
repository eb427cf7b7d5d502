package io.ortex.runtime.internal.optimizer;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.DataLayout;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Converts chosen nodes of a model's main graph to channels-last layout, as ONNX Runtime's layout transformer does
 * for an EP that prefers NHWC: each node moves to the domain {@value DataLayout#NHWC_DOMAIN} with a {@code Transpose}
 * to channels last before its first input and one back to channels first after its first output. Then transposes
 * are pushed forward through element-wise ops, pairs that undo each other are cancelled, and transposes of constants
 * are folded into new constants, so that converted nodes in a chain pass their data channels last. The graph keeps its
 * inputs, outputs and semantics. Stateless; which nodes to convert is the caller's decision.
 */
public final class LayoutTransformer {
    /** The ops whose layout ONNX Runtime converts when the EP leaves the decision to it. */
    public static final Set<String> LAYOUT_SENSITIVE_OPS = Set.of("BatchNormalization", "InstanceNormalization",
            "Conv", "QLinearConv", "ConvTranspose", "AveragePool", "LpPool", "MaxPool", "GlobalAveragePool",
            "GlobalLpPool", "GlobalMaxPool", "LRN", "GridSample", "DepthToSpace", "SpaceToDepth", "Resize");

    /**
     * Element-wise ops of one data input (any others are scalars) that a transpose moves through unchanged:
     * {@code Transpose -> op} computes what {@code op -> Transpose} does.
     */
    public static final Set<String> ELEMENTWISE_OPS = Set.of("Relu", "LeakyRelu", "Sigmoid", "HardSigmoid",
            "HardSwish", "Tanh", "Elu", "Selu", "Celu", "Softplus", "Softsign", "Abs", "Neg", "Exp", "Log", "Sqrt",
            "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf", "Sin", "Cos", "Not", "Cast", "Clip", "Identity");

    private LayoutTransformer() {
    }

    /**
     * Converts nodes of a model's graphs to channels last: the main graph's and those of the subgraphs nested in it
     * (If, Loop and Scan bodies), each subgraph on its own, innermost first. Value names are unique across a model,
     * so one map names the nodes of every graph, and new names are chosen against all of them.
     *
     * @param model the model
     * @param ranks the nodes to convert, each by the name of its first output, with the rank of its first input (at
     *     least 3)
     * @return the converted model, or {@code model} itself when no node was converted
     */
    public static ModelProto toChannelsLast(ModelProto model, Map<String, Integer> ranks) {
        Set<String> names = new HashSet<>();
        collectDefinedEverywhere(model.getGraph(), names);
        int[] converted = {0};
        GraphProto main = withConvertedSubgraphs(model.getGraph(), ranks, names, converted);
        Rewrite rewrite = new Rewrite(main, names);
        converted[0] += rewrite.wrap(ranks);
        if (converted[0] == 0) {
            return model;
        }
        rewrite.cancelTransposes();
        ModelProto.Builder out = model.toBuilder().setGraph(new MainGraph(rewrite.build()).build());
        boolean imported = model.getOpsetImportList().stream()
                .anyMatch(o -> o.getDomain().equals(DataLayout.NHWC_DOMAIN));
        if (!imported) {
            long onnx = model.getOpsetImportList().stream()
                    .filter(o -> o.getDomain().isEmpty() || o.getDomain().equals("ai.onnx"))
                    .mapToLong(OperatorSetIdProto::getVersion).max().orElse(1);
            // the converted nodes keep their ONNX op versions, so the domain is imported at the ONNX opset
            out.addOpsetImport(OperatorSetIdProto.newBuilder().setDomain(DataLayout.NHWC_DOMAIN).setVersion(onnx));
        }
        return out.build();
    }

    /** The graph with the subgraphs of its nodes converted (each in turn with its own subgraphs first). */
    private static GraphProto withConvertedSubgraphs(GraphProto g, Map<String, Integer> ranks, Set<String> names,
                                                     int[] converted) {
        GraphProto.Builder b = null;
        for (int i = 0; i < g.getNodeCount(); i++) {
            NodeProto n = g.getNode(i);
            NodeProto.Builder nb = null;
            for (int a = 0; a < n.getAttributeCount(); a++) {
                AttributeProto attr = n.getAttribute(a);
                AttributeProto.Builder ab = null;
                if (attr.hasG()) {
                    GraphProto sub = convertSubgraph(attr.getG(), ranks, names, converted);
                    if (sub != attr.getG()) {
                        ab = attr.toBuilder().setG(sub);
                    }
                }
                for (int k = 0; k < attr.getGraphsCount(); k++) {
                    GraphProto sub = convertSubgraph(attr.getGraphs(k), ranks, names, converted);
                    if (sub != attr.getGraphs(k)) {
                        ab = (ab == null ? attr.toBuilder() : ab).setGraphs(k, sub);
                    }
                }
                if (ab != null) {
                    nb = (nb == null ? n.toBuilder() : nb).setAttribute(a, ab);
                }
            }
            if (nb != null) {
                b = (b == null ? g.toBuilder() : b).setNode(i, nb);
            }
        }
        return b == null ? g : b.build();
    }

    private static GraphProto convertSubgraph(GraphProto sub, Map<String, Integer> ranks, Set<String> names,
                                              int[] converted) {
        GraphProto inner = withConvertedSubgraphs(sub, ranks, names, converted);
        Rewrite rewrite = new Rewrite(inner, names);
        int n = rewrite.wrap(ranks);
        if (n == 0) {
            return inner;
        }
        converted[0] += n;
        rewrite.cancelTransposes();
        return new MainGraph(rewrite.build()).build();
    }

    /** Adds every name any graph of the model defines or reads. */
    private static void collectDefinedEverywhere(GraphProto g, Set<String> out) {
        g.getInputList().forEach(v -> out.add(v.getName()));
        g.getOutputList().forEach(v -> out.add(v.getName()));
        g.getValueInfoList().forEach(v -> out.add(v.getName()));
        g.getInitializerList().forEach(t -> out.add(t.getName()));
        for (NodeProto n : g.getNodeList()) {
            out.addAll(n.getInputList());
            out.addAll(n.getOutputList());
            for (AttributeProto a : n.getAttributeList()) {
                MainGraph.subgraphs(a).forEach(sub -> collectDefinedEverywhere(sub, out));
            }
        }
    }

    /** The permutation that moves axis 1 (channels) last. */
    static long[] channelsLast(int rank) {
        long[] p = new long[rank];
        for (int i = 1; i < rank - 1; i++) {
            p[i] = i + 1;
        }
        p[rank - 1] = 1;
        return p;
    }

    /** The permutation that moves the last axis to position 1. */
    static long[] channelsFirst(int rank) {
        long[] p = new long[rank];
        p[1] = rank - 1;
        for (int i = 2; i < rank; i++) {
            p[i] = i - 1;
        }
        return p;
    }

    /** The graph while it is rewritten: nodes by index ({@code null} once removed), producers and consumers. */
    private static final class Rewrite {
        private final GraphProto graph;
        private final List<NodeProto> nodes;
        private final Map<String, TensorProto> initializers = new LinkedHashMap<>();
        private final Set<String> graphInputs = new HashSet<>();
        private final Set<String> graphOutputs = new HashSet<>();
        private final Set<String> subgraphReads = new HashSet<>();
        /** Every name of the model, shared by the rewrites of its graphs, so that no new name is taken twice. */
        private final Set<String> names;
        private final Map<String, Integer> producer = new HashMap<>();
        private final Map<String, List<Integer>> consumers = new HashMap<>();

        Rewrite(GraphProto graph, Set<String> names) {
            this.graph = graph;
            this.names = names;
            this.nodes = new ArrayList<>(graph.getNodeList());
            graph.getInitializerList().forEach(t -> initializers.put(t.getName(), t));
            graph.getInputList().forEach(v -> graphInputs.add(v.getName()));
            graph.getOutputList().forEach(v -> graphOutputs.add(v.getName()));
            names.addAll(initializers.keySet());
            names.addAll(graphInputs);
            graph.getValueInfoList().forEach(v -> names.add(v.getName()));
            for (NodeProto n : nodes) {
                names.addAll(n.getInputList());
                names.addAll(n.getOutputList());
                for (AttributeProto a : n.getAttributeList()) {
                    MainGraph.subgraphs(a).forEach(g -> MainGraph.collectReads(g, subgraphReads));
                    MainGraph.subgraphs(a).forEach(g -> collectDefined(g, names));
                }
            }
            names.addAll(subgraphReads);
        }

        /** Adds every name a subgraph (or one nested in it) defines, so that no new name shadows one of them. */
        private static void collectDefined(GraphProto g, Set<String> out) {
            g.getInputList().forEach(v -> out.add(v.getName()));
            g.getInitializerList().forEach(t -> out.add(t.getName()));
            for (NodeProto n : g.getNodeList()) {
                out.addAll(n.getOutputList());
                for (AttributeProto a : n.getAttributeList()) {
                    MainGraph.subgraphs(a).forEach(sub -> collectDefined(sub, out));
                }
            }
        }

        /** Wraps the chosen nodes in transposes; returns how many were converted. */
        int wrap(Map<String, Integer> ranks) {
            List<NodeProto> out = new ArrayList<>(nodes.size());
            int converted = 0;
            for (NodeProto n : nodes) {
                Integer rank = n.getOutputCount() == 0 ? null : ranks.get(n.getOutput(0));
                if (rank == null || rank < 3 || n.getOutput(0).isEmpty() || n.getInputCount() == 0
                        || n.getInput(0).isEmpty()) {
                    out.add(n);
                    continue;
                }
                NodeProto.Builder b = n.toBuilder().setDomain(DataLayout.NHWC_DOMAIN);
                if (n.getOpType().equals("Resize") && !resizeOperands(b, rank)) {
                    out.add(n);
                    continue;
                }
                String data = n.getInput(0);
                String dataLast = fresh(data + "_nhwc");
                out.add(transpose(n.getName() + "_to_nhwc", data, dataLast, channelsLast(rank)));
                String result = n.getOutput(0);
                String resultLast = fresh(result + "_nhwc");
                b.setInput(0, dataLast).setOutput(0, resultLast);
                out.add(b.build());
                out.add(transpose(n.getName() + "_to_nchw", resultLast, result, channelsFirst(rank)));
                converted++;
            }
            nodes.clear();
            nodes.addAll(out);
            return converted;
        }

        /**
         * Gives a Resize's {@code scales} or {@code sizes} in channels-last order, as new constants. A Resize whose
         * {@code roi} is not empty, or whose scales or sizes are not constants of one entry per axis, is not
         * converted (ONNX Runtime leaves the {@code roi} in NCHW order, which would be wrong).
         */
        private boolean resizeOperands(NodeProto.Builder b, int rank) {
            if (b.getInputCount() > 1 && !b.getInput(1).isEmpty()) {
                TensorProto roi = constant(b.getInput(1));
                if (roi == null || TensorCodec.elementCount(roi, TensorCodec.shape(roi)) != 0) {
                    return false;
                }
            }
            List<String[]> renamed = new ArrayList<>();
            for (int i = 2; i < b.getInputCount(); i++) {
                String name = b.getInput(i);
                if (name.isEmpty()) {
                    continue;
                }
                TensorProto t = constant(name);
                if (t == null) {
                    return false;
                }
                long count = TensorCodec.elementCount(t, TensorCodec.shape(t));
                if (count == 0) {
                    continue;
                }
                if (count != rank || t.getDimsCount() != 1) {
                    return false;
                }
                TensorProto permuted = reorder(t, channelsLast(rank), fresh(name + "_nhwc"));
                if (permuted == null) {
                    return false;
                }
                renamed.add(new String[] {String.valueOf(i), permuted.getName()});
                initializers.put(permuted.getName(), permuted);
            }
            for (String[] r : renamed) {
                b.setInput(Integer.parseInt(r[0]), r[1]);
            }
            return true;
        }

        /** Pushes, cancels and folds transposes until none of them can move. */
        void cancelTransposes() {
            index();
            Deque<Integer> work = new ArrayDeque<>();
            for (int i = 0; i < nodes.size(); i++) {
                if (perm(nodes.get(i)) != null) {
                    work.add(i);
                }
            }
            while (!work.isEmpty()) {
                int t = work.poll();
                NodeProto node = nodes.get(t);
                long[] perm = perm(node);
                if (perm == null) {
                    continue;
                }
                String in = node.getInput(0);
                String out = node.getOutput(0);
                if (graphOutputs.contains(out) || subgraphReads.contains(out)) {
                    continue;
                }
                if (fold(t, perm)) {
                    continue;
                }
                List<Integer> readers = consumers.getOrDefault(out, List.of());
                if (readers.size() != 1) {
                    continue;
                }
                int c = readers.get(0);
                NodeProto reader = nodes.get(c);
                long[] next = perm(reader);
                if (next != null && isIdentity(perm, next)) {
                    String end = reader.getOutput(0);
                    if (graphOutputs.contains(end) || subgraphReads.contains(end)) {
                        continue;
                    }
                    for (int d : List.copyOf(consumers.getOrDefault(end, List.of()))) {
                        replaceInput(d, end, in);
                    }
                    remove(c);
                    remove(t);
                    Integer before = producer.get(in);
                    if (before != null) {
                        work.add(before);
                    }
                    work.addAll(consumers.getOrDefault(in, List.of()));
                } else if (isElementwise(reader) && reader.getInput(0).equals(out)
                        && reader.getInputList().stream().filter(out::equals).count() == 1) {
                    // Transpose(x) -> op  becomes  op(x) -> Transpose: the transpose moves on towards its inverse
                    String end = reader.getOutput(0);
                    String between = fresh(end + "_nhwc");
                    replaceInput(c, out, in);
                    setOutput(c, between);
                    replaceInput(t, in, between);
                    setOutput(t, end);
                    work.add(t);
                }
            }
        }

        /** Folds a transpose of a constant into a new constant named as its output; false when it cannot. */
        private boolean fold(int t, long[] perm) {
            NodeProto node = nodes.get(t);
            String in = node.getInput(0);
            TensorProto constant = constant(in);
            if (constant == null) {
                return false;
            }
            TensorProto folded = permute(constant, perm, node.getOutput(0));
            if (folded == null) {
                return false;
            }
            remove(t);
            initializers.put(folded.getName(), folded);
            if (consumers.getOrDefault(in, List.of()).isEmpty() && !graphOutputs.contains(in)
                    && !subgraphReads.contains(in)) {
                initializers.remove(in);
            }
            return true;
        }

        /** A constant initializer held in the model (not a graph input, not external data), or {@code null}. */
        private TensorProto constant(String name) {
            TensorProto t = initializers.get(name);
            if (t == null || graphInputs.contains(name)
                    || t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
                return null;
            }
            return t;
        }

        private static boolean isElementwise(NodeProto n) {
            return n != null && MainGraph.isDefaultDomain(n) && ELEMENTWISE_OPS.contains(n.getOpType())
                    && n.getOutputCount() == 1 && !n.getOutput(0).isEmpty() && n.getInputCount() >= 1
                    && !MainGraph.hasSubgraphs(n);
        }

        /** Whether applying {@code first} and then {@code second} leaves every axis where it was. */
        private static boolean isIdentity(long[] first, long[] second) {
            if (first.length != second.length) {
                return false;
            }
            for (int i = 0; i < second.length; i++) {
                if (first[(int) second[i]] != i) {
                    return false;
                }
            }
            return true;
        }

        /** A Transpose node's valid {@code perm}, or {@code null} for any other node or a Transpose without one. */
        private static long[] perm(NodeProto n) {
            if (n == null || !n.getOpType().equals("Transpose") || !MainGraph.isDefaultDomain(n)
                    || n.getInputCount() != 1 || n.getOutputCount() != 1 || n.getInput(0).isEmpty()) {
                return null;
            }
            for (AttributeProto a : n.getAttributeList()) {
                if (a.getName().equals("perm")) {
                    long[] p = a.getIntsList().stream().mapToLong(Long::longValue).toArray();
                    boolean[] seen = new boolean[p.length];
                    for (long axis : p) {
                        if (axis < 0 || axis >= p.length || seen[(int) axis]) {
                            return null;
                        }
                        seen[(int) axis] = true;
                    }
                    return p;
                }
            }
            return null;
        }

        private void index() {
            producer.clear();
            consumers.clear();
            for (int i = 0; i < nodes.size(); i++) {
                NodeProto n = nodes.get(i);
                for (String o : n.getOutputList()) {
                    if (!o.isEmpty()) {
                        producer.put(o, i);
                    }
                }
                for (String in : n.getInputList()) {
                    if (!in.isEmpty()) {
                        consumers.computeIfAbsent(in, k -> new ArrayList<>()).add(i);
                    }
                }
            }
        }

        private void replaceInput(int node, String from, String to) {
            NodeProto.Builder b = nodes.get(node).toBuilder();
            for (int k = 0; k < b.getInputCount(); k++) {
                if (b.getInput(k).equals(from)) {
                    b.setInput(k, to);
                    consumers.get(from).remove(Integer.valueOf(node));
                    consumers.computeIfAbsent(to, x -> new ArrayList<>()).add(node);
                }
            }
            nodes.set(node, b.build());
        }

        private void setOutput(int node, String to) {
            NodeProto n = nodes.get(node);
            producer.remove(n.getOutput(0));
            producer.put(to, node);
            nodes.set(node, n.toBuilder().setOutput(0, to).build());
        }

        private void remove(int node) {
            NodeProto n = nodes.get(node);
            for (String in : n.getInputList()) {
                List<Integer> readers = consumers.get(in);
                if (readers != null) {
                    readers.remove(Integer.valueOf(node));
                }
            }
            for (String o : n.getOutputList()) {
                producer.remove(o);
            }
            nodes.set(node, null);
        }

        /** A name no value of the graph has yet, reserved. */
        private String fresh(String base) {
            String name = base;
            for (int i = 1; !names.add(name); i++) {
                name = base + "_" + i;
            }
            return name;
        }

        private static NodeProto transpose(String name, String in, String out, long[] perm) {
            AttributeProto.Builder a = AttributeProto.newBuilder().setName("perm")
                    .setType(AttributeProto.AttributeType.INTS);
            for (long p : perm) {
                a.addInts(p);
            }
            return NodeProto.newBuilder().setOpType("Transpose").setName(name).addInput(in).addOutput(out)
                    .addAttribute(a).build();
        }

        GraphProto build() {
            GraphProto.Builder b = graph.toBuilder().clearNode().clearInitializer();
            for (NodeProto n : nodes) {
                if (n != null) {
                    b.addNode(n);
                }
            }
            b.addAllInitializer(initializers.values());
            // shapes recorded for values that now hold channels-last data or are gone would mislead: keep the others
            List<ValueInfoProto> infos = new ArrayList<>(b.getValueInfoList());
            b.clearValueInfo();
            for (ValueInfoProto v : infos) {
                if (producer.containsKey(v.getName()) || initializers.containsKey(v.getName())) {
                    b.addValueInfo(v);
                }
            }
            return b.build();
        }
    }

    /**
     * Reorders the entries of a one-dimensional constant (one per axis, as a Resize's scales), entry {@code i} of the
     * result being entry {@code perm[i]}; {@code null} for a type without whole-byte elements.
     */
    static TensorProto reorder(TensorProto t, long[] perm, String name) {
        ElementType type = TensorCodec.elementType(t);
        if (type == ElementType.STRING || type.bitWidth() < 8) {
            return null;
        }
        ByteBuffer source = TensorCodec.toBytes(TensorCodec.fromProto(t));
        ByteBuffer target = ByteBuffer.allocate(source.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        int size = type.byteSize();
        for (long p : perm) {
            for (int k = 0; k < size; k++) {
                target.put(source.get((int) p * size + k));
            }
        }
        target.flip();
        return TensorCodec.toProto(TensorCodec.fromBytes(name, type, new long[] {perm.length}, perm.length, target),
                name);
    }

    /**
     * Transposes a constant, or gives {@code null} for one of a type without whole-byte elements.
     *
     * @param t the constant, its data in the model
     * @param perm the permutation, one entry per axis of {@code t}
     * @param name the new constant's name
     */
    static TensorProto permute(TensorProto t, long[] perm, String name) {
        ElementType type = TensorCodec.elementType(t);
        if (type == ElementType.STRING || type.bitWidth() < 8 || t.getDimsCount() != perm.length) {
            return null;
        }
        Tensor tensor = TensorCodec.fromProto(t);
        long[] shape = tensor.shape();
        int rank = shape.length;
        long[] outShape = new long[rank];
        long[] inStrides = new long[rank];
        long stride = 1;
        for (int i = rank - 1; i >= 0; i--) {
            inStrides[i] = stride;
            stride *= shape[i];
        }
        for (int i = 0; i < rank; i++) {
            outShape[i] = shape[(int) perm[i]];
        }
        int size = type.byteSize();
        ByteBuffer source = TensorCodec.toBytes(tensor);
        ByteBuffer target = ByteBuffer.allocate(source.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        int count = tensor.size();
        int[] index = new int[rank];
        for (int e = 0; e < count; e++) {
            long offset = 0;
            for (int i = 0; i < rank; i++) {
                offset += index[i] * inStrides[(int) perm[i]];
            }
            for (int k = 0; k < size; k++) {
                target.put(source.get((int) (offset * size + k)));
            }
            for (int i = rank - 1; i >= 0; i--) {
                if (++index[i] < outShape[i]) {
                    break;
                }
                index[i] = 0;
            }
        }
        target.flip();
        return TensorCodec.toProto(TensorCodec.fromBytes(name, type, outShape, count, target), name);
    }
}
