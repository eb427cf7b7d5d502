package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.Names;
import io.ortex.api.NotImplementedException;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.KernelDef;
import io.ortex.api.spi.KernelRegistry;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the registered kernel of a node in an EP's {@link KernelRegistry}, as ONNX Runtime's kernel lookup does: same
 * domain and op type, the node's opset version (resolved from the model's opset import for its domain) inside the
 * definition's range, and every constrained input of a type the definition allows. An input whose type the model does
 * not declare passes here and is checked when the kernel runs ({@link RegistryKernel}).
 */
final class KernelMatcher {
    private KernelMatcher() {
    }

    /**
     * Finds the first matching kernel.
     *
     * @param registry the EP's registry, or {@code null}
     * @param node the node
     * @return the entry, or empty
     */
    static Optional<KernelRegistry.Entry> find(KernelRegistry registry, NodeView node) {
        if (registry == null) {
            return Optional.empty();
        }
        for (KernelRegistry.Entry e : registry.entries()) {
            KernelDef d = e.definition();
            if (sameOp(d, node) && d.serves(node.opsetVersion()) && typeMismatch(d, node) == null) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /**
     * Finds the matching kernel or fails naming the node and why none fits.
     *
     * @param ep the EP's name
     * @param registry the EP's registry
     * @param node the node the EP claimed
     * @return the entry
     * @throws NotImplementedException when no definition fits, saying which of op, opset or type ruled them out
     */
    static KernelRegistry.Entry require(String ep, KernelRegistry registry, NodeView node) {
        Optional<KernelRegistry.Entry> found = find(registry, node);
        if (found.isPresent()) {
            return found.get();
        }
        List<KernelDef> sameOp = new ArrayList<>();
        for (KernelRegistry.Entry e : registry.entries()) {
            if (sameOp(e.definition(), node)) {
                sameOp.add(e.definition());
            }
        }
        String what = "node " + Names.quote(node.displayName()) + " (op " + Partitioner.opName(node) + ", opset "
                + node.opsetVersion() + ") was claimed by EP " + ep + ", which has no kernel for it: ";
        if (sameOp.isEmpty()) {
            throw new NotImplementedException(what + "its registry has no kernel of that op");
        }
        List<KernelDef> inRange = sameOp.stream().filter(d -> d.serves(node.opsetVersion())).toList();
        if (inRange.isEmpty()) {
            throw new NotImplementedException(what + "its kernels of that op serve " + sameOp.stream()
                    .map(KernelMatcher::range).toList() + ", not opset " + node.opsetVersion());
        }
        List<String> why = new ArrayList<>();
        for (KernelDef d : inRange) {
            why.add(typeMismatch(d, node));
        }
        throw new NotImplementedException(what + String.join("; ", why));
    }

    private static boolean sameOp(KernelDef d, NodeView node) {
        return d.opType().equals(node.opType()) && d.domain().equals(node.domain());
    }

    private static String range(KernelDef d) {
        return d.sinceVersion() + (d.untilVersion() == KernelDef.NO_UNTIL ? "+" : "-" + d.untilVersion());
    }

    /** Says which constrained input has a declared type the definition does not take, or null when none. */
    private static String typeMismatch(KernelDef d, NodeView node) {
        for (KernelDef.TypeConstraint c : d.typeConstraints()) {
            for (int i : c.inputs()) {
                ElementType t = declaredType(node, i);
                if (t != null && !c.types().contains(t)) {
                    ValueView v = node.inputs().get(i);
                    return "input " + i + " (" + Names.quote(v.name()) + ") is " + t + ", the kernel " + d + " takes "
                            + c.name() + " in " + c.types();
                }
            }
        }
        return null;
    }

    private static ElementType declaredType(NodeView node, int input) {
        if (input >= node.inputs().size() || node.inputs().get(input) == null) {
            return null;
        }
        return node.inputs().get(input).typeInfo().map(TensorInfo::type).orElse(null);
    }
}
