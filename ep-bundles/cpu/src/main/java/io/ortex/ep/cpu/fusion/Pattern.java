package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.List;
import java.util.Optional;

/** Queries on a graph view that the fusions' matchers share. Stateless. */
final class Pattern {
    private Pattern() {
    }

    /** Whether a node is of the default ONNX domain and of the given op type. */
    static boolean is(NodeView n, String opType) {
        return n != null && n.opType().equals(opType) && (n.domain().isEmpty() || n.domain().equals("ai.onnx"));
    }

    /** The only node that reads a value, when the value is read by exactly one node and is no graph output. */
    static NodeView soleConsumer(ValueView v) {
        if (v == null || v.isGraphOutput()) {
            return null;
        }
        List<NodeView> readers = v.consumers();
        return readers.size() == 1 ? readers.get(0) : null;
    }

    /** The node that writes a value, or {@code null} for a graph input, an initializer or a missing value. */
    static NodeView producer(ValueView v) {
        return v == null ? null : v.producer().orElse(null);
    }

    /** A node's only output, when it has exactly one. */
    static ValueView output(NodeView n) {
        return n.outputs().size() == 1 ? n.outputs().get(0) : null;
    }

    /** The input of a binary node other than {@code v}, or {@code null} when {@code v} is not one of its two. */
    static ValueView other(NodeView binary, ValueView v) {
        if (binary.inputs().size() != 2) {
            return null;
        }
        ValueView a = binary.inputs().get(0);
        ValueView b = binary.inputs().get(1);
        if (a != null && a.name().equals(v.name())) {
            return b;
        }
        if (b != null && b.name().equals(v.name())) {
            return a;
        }
        return null;
    }

    /** A constant initializer's value, when it is a float32 tensor. */
    static Optional<Tensor> constantFloats(ValueView v) {
        if (v == null || !v.isConstantInitializer()) {
            return Optional.empty();
        }
        return v.initializer().filter(t -> t.type() == ElementType.FLOAT);
    }

    /** A constant initializer's single value, when it holds exactly one float32 or float64 element. */
    static Optional<Float> scalar(ValueView v) {
        if (v == null || !v.isConstantInitializer()) {
            return Optional.empty();
        }
        Optional<Tensor> t = v.initializer();
        if (t.isEmpty() || t.get().size() != 1) {
            return Optional.empty();
        }
        if (t.get().type() == ElementType.FLOAT) {
            return Optional.of(t.get().floats()[0]);
        }
        if (t.get().type() == ElementType.DOUBLE) {
            return Optional.of((float) t.get().doubles()[0]);
        }
        return Optional.empty();
    }

    /** Whether a constant holds exactly {@code expected} (within float rounding). */
    static boolean scalarIs(ValueView v, double expected, double tolerance) {
        return scalar(v).map(f -> Math.abs(f - expected) <= tolerance).orElse(false);
    }

    /** Whether a value is known to be float32, or its type is not declared. */
    static boolean mayBeFloat(ValueView v) {
        return v.typeInfo().map(i -> i.type() == null || i.type() == ElementType.FLOAT).orElse(true);
    }
}
