package io.ortex.ep.example;

import io.ortex.api.ElementType;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.example.program.OpCode;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether the example EP can run one node. A node is supported when all of these hold:
 * <ul>
 *   <li>it is {@code MatMul}, {@code Gemm}, {@code Add}, {@code Mul}, {@code Relu} or {@code Conv} of the default
 *       ONNX domain, with the number of inputs its op takes and exactly one output;</li>
 *   <li>every input and output is float32. A value whose type the model declares must declare float32. A value
 *       without a declared type is accepted as an output (these ops produce the type of their inputs), and as an
 *       input when another input of the node is declared float32 (all inputs of these ops share one type) or a
 *       node already judged supported produces it; otherwise an untyped input is refused;</li>
 *   <li>its attributes are ones the EP implements, with valid values ({@link NodeAttributes}).</li>
 * </ul>
 * Shapes are checked when the program runs, as ONNX allows dynamic shapes. Stateless.
 */
final class NodeSupport {
    private NodeSupport() {
    }

    /**
     * Tells why a node is not supported.
     *
     * @param node the node
     * @param supportedProducers the ids of the nodes of the same graph already judged supported
     * @return empty when the node is supported, otherwise the reason
     */
    static Optional<String> rejection(NodeView node, Set<Integer> supportedProducers) {
        OpCode op = OpCode.forNode(node.domain(), node.opType());
        if (op == null && !node.domain().isEmpty() && !node.domain().equals("ai.onnx")) {
            return Optional.of("op " + node.opType() + " of domain " + Names.quote(node.domain())
                    + " is not implemented");
        }
        if (op == null) {
            return Optional.of("op " + node.opType() + " is not implemented");
        }
        Optional<String> arity = arity(op, node);
        if (arity.isPresent()) {
            return arity;
        }
        // every op the EP takes has one type variable T for all its inputs and its output, so one input declared
        // float32 makes the undeclared ones float32 too (or the model is invalid)
        boolean declaredFloat = node.inputs().stream().anyMatch(v -> v != null
                && v.typeInfo().map(TensorInfo::type).orElse(null) == ElementType.FLOAT);
        for (ValueView v : node.inputs()) {
            if (v != null && (!declaredFloat || v.typeInfo().map(TensorInfo::type).isPresent())) {
                Optional<String> bad = typeRejection(v, true, supportedProducers);
                if (bad.isPresent()) {
                    return bad;
                }
            }
        }
        Optional<String> bad = typeRejection(node.outputs().get(0), false, supportedProducers);
        if (bad.isPresent()) {
            return bad;
        }
        try {
            NodeAttributes.read(op, node);
        } catch (OrtexException e) {
            return Optional.of(e.getMessage());
        }
        return Optional.empty();
    }

    private static Optional<String> arity(OpCode op, NodeView node) {
        List<ValueView> in = node.inputs();
        int required = op == OpCode.RELU ? 1 : 2;
        int allowed = op == OpCode.GEMM || op == OpCode.CONV || op == OpCode.CONV_NHWC ? 3 : required;
        if (in.size() < required || in.size() > allowed) {
            return Optional.of(op.onnxName() + " with " + in.size() + " inputs");
        }
        for (int i = 0; i < required; i++) {
            if (in.get(i) == null) {
                return Optional.of("required input " + i + " is omitted");
            }
        }
        if (node.outputs().size() != 1 || node.outputs().get(0) == null) {
            return Optional.of(op.onnxName() + " with " + node.outputs().size() + " outputs");
        }
        if (!node.implicitInputs().isEmpty() || !node.subgraphs().isEmpty()) {
            return Optional.of("nodes with subgraphs are not implemented");
        }
        return Optional.empty();
    }

    private static Optional<String> typeRejection(ValueView v, boolean input, Set<Integer> supportedProducers) {
        ElementType type = v.typeInfo().map(TensorInfo::type).orElse(null);
        if (type != null) {
            return type == ElementType.FLOAT ? Optional.empty()
                    : Optional.of("value " + Names.quote(v.name()) + " is " + type + ", only float32 is implemented");
        }
        if (!input) {
            return Optional.empty();
        }
        boolean fromSupported = v.producer().map(p -> supportedProducers.contains(p.id())).orElse(false);
        return fromSupported ? Optional.empty()
                : Optional.of("input " + Names.quote(v.name()) + " has no declared type and no supported producer");
    }
}
