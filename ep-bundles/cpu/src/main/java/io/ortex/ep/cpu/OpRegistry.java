package io.ortex.ep.cpu;

import io.ortex.api.spi.NodeView;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The CPU EP's operator table: which (domain, op type) pairs have a kernel, from which opset on. Filled once at
 * start-up by the op groups in {@code io.ortex.ep.cpu.ops}, then only read.
 */
public final class OpRegistry {
    private final Map<String, Entry> entries = new TreeMap<>();

    private record Entry(int sinceVersion, KernelFactory factory) {
    }

    /**
     * Registers a kernel for an op of the default ONNX domain, valid from opset 1.
     *
     * @param opType the op type
     * @param factory what makes its kernels
     */
    public void register(String opType, KernelFactory factory) {
        register("", opType, 1, factory);
    }

    /**
     * Registers a kernel.
     *
     * @param domain the domain, {@code ""} for ONNX
     * @param opType the op type
     * @param sinceVersion the first opset of that domain the kernel implements
     * @param factory what makes its kernels
     * @throws IllegalStateException when the op is registered twice
     */
    public void register(String domain, String opType, int sinceVersion, KernelFactory factory) {
        String key = key(domain, opType);
        if (entries.putIfAbsent(key, new Entry(sinceVersion, factory)) != null) {
            throw new IllegalStateException("op " + key + " registered twice");
        }
    }

    /**
     * Finds the kernel factory for a node.
     *
     * @param node the node
     * @return the factory, or {@code null} when the op (at the node's opset) has no kernel
     */
    public KernelFactory lookup(NodeView node) {
        Entry e = entries.get(key(node.domain(), node.opType()));
        if (e == null || node.opsetVersion() < e.sinceVersion()) {
            return null;
        }
        return e.factory();
    }

    /**
     * Lists the registered ops as {@code OpType} or {@code domain::OpType}.
     *
     * @return the op names, sorted
     */
    public Set<String> ops() {
        return Collections.unmodifiableSet(new TreeSet<>(entries.keySet()));
    }

    private static String key(String domain, String opType) {
        return domain.isEmpty() || "ai.onnx".equals(domain) ? opType : domain + "::" + opType;
    }
}
