package io.ortex.ep.ort;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.TensorInfo;
import io.ortex.api.ElementType;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tries a candidate group on ONNX Runtime itself: exports it as a standalone model and opens a session for it, which
 * is what tells whether ONNX Runtime has kernels for its nodes with their types and attributes. A failure that names a
 * node (a missing kernel, a failed shape inference) says which node to leave out; other checks come first: every
 * input of the group needs an element type both sides can carry, and so does every output. Not thread safe; used by
 * one EP instance during one {@code getCapability} call.
 */
final class PartitionProbe {
    /** ONNX Runtime's messages that name the node at fault. */
    private static final List<Pattern> NODE_IN_MESSAGE = List.of(
            Pattern.compile("node with name '([^']*)'"),
            Pattern.compile("\\(node:'([^']*)'"),
            Pattern.compile("Node \\(([^)]*)\\)"),
            Pattern.compile("node ([^ ]+) of type"));

    /**
     * What a probe found.
     *
     * @param session the group's session when ONNX Runtime took it, else {@code null}
     * @param refused the nodes to leave out when it did not and the fault is theirs, else empty
     * @param message ONNX Runtime's message when it refused the group, else {@code null}
     */
    record Outcome(PartitionSession session, List<NodeView> refused, String message) {
        boolean accepted() {
            return session != null;
        }
    }

    private final SessionMaker maker;
    private final ElementTypes types;

    /**
     * Creates the prober.
     *
     * @param maker opens the sessions
     * @param types the element types of the graph's values
     */
    PartitionProbe(SessionMaker maker, ElementTypes types) {
        this.maker = maker;
        this.types = types;
    }

    /**
     * Tries a group.
     *
     * @param graph the graph
     * @param group nodes of the graph forming a convex group
     * @return the outcome
     */
    Outcome probe(GraphView graph, List<NodeView> group) {
        GraphView view = graph.viewOf(group);
        Map<String, ElementType> inputTypes = new LinkedHashMap<>();
        for (ValueView v : view.inputs()) {
            ElementType t = typeOf(v);
            if (t == null || !TensorBridge.SUPPORTED.contains(t)) {
                return refuse(consumersIn(v, view.nodes()), "input '" + v.name() + "' has "
                        + (t == null ? "no known element type" : "element type " + t));
            }
            inputTypes.put(v.name(), t);
        }
        for (ValueView v : view.outputs()) {
            ElementType t = typeOf(v);
            if (t != null && !TensorBridge.SUPPORTED.contains(t)) {
                return refuse(v.producer().map(List::of).orElse(List.of()), "output '" + v.name() + "' has element "
                        + "type " + t);
            }
        }
        ModelExport export = view.exportModel(ModelExportOptions.DEFAULT.withInputElementTypes(inputTypes));
        PartitionSession session;
        try {
            session = maker.open(export.bytes(), export.externalDataFolder().orElse(null));
        } catch (OrtException e) {
            String message = OrtRuntime.message(e);
            NodeView culprit = culprit(message, export.nodeNames(), view.nodes());
            return new Outcome(null, culprit == null ? List.of() : List.of(culprit), message);
        }
        try {
            for (Map.Entry<String, NodeInfo> out : session.outputInfo().entrySet()) {
                if (!(out.getValue().getInfo() instanceof TensorInfo ti) || !carried(ti)) {
                    session.close();
                    ValueView v = view.outputs().stream().filter(o -> o.name().equals(out.getKey())).findFirst()
                            .orElseThrow();
                    return refuse(v.producer().map(List::of).orElse(List.of()), "output '" + v.name() + "' is "
                            + out.getValue().getInfo());
                }
            }
        } catch (OrtException e) {
            session.close();
            return new Outcome(null, List.of(), OrtRuntime.message(e));
        }
        return new Outcome(session, List.of(), null);
    }

    private ElementType typeOf(ValueView v) {
        ElementType declared = v.typeInfo().map(io.ortex.api.TensorInfo::type).orElse(null);
        return declared != null ? declared : types.of(v.name());
    }

    private static boolean carried(TensorInfo ti) {
        ElementType t = TensorBridge.elementType(ti.onnxType);
        return t != null && TensorBridge.SUPPORTED.contains(t);
    }

    private static Outcome refuse(List<NodeView> nodes, String why) {
        return new Outcome(null, nodes, why);
    }

    private static List<NodeView> consumersIn(ValueView v, List<NodeView> group) {
        List<NodeView> out = new ArrayList<>();
        for (NodeView n : group) {
            if (GroupPlanner.reads(n).contains(v)) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Finds the node an ONNX Runtime message names.
     *
     * @param message the message
     * @param names the node names in the exported model
     * @param nodes the nodes, in the same order
     * @return the node, or {@code null} when the message names none of them
     */
    static NodeView culprit(String message, List<String> names, List<NodeView> nodes) {
        Map<String, NodeView> byName = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            byName.put(names.get(i), nodes.get(i));
        }
        for (Pattern p : NODE_IN_MESSAGE) {
            Matcher m = p.matcher(message);
            while (m.find()) {
                NodeView n = byName.get(m.group(1));
                if (n != null) {
                    return n;
                }
            }
        }
        return null;
    }
}
