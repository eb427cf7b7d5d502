package io.ortex.ep.cpu;

import io.ortex.api.spi.NodeView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The CPU EP's operator table: which (domain, op type) pairs have a kernel, for which opsets of their domain. An op
 * may be registered several times with disjoint opset ranges, one kernel factory per range, so that a kernel never
 * has to test the node's opset itself. Filled once at start-up by the registrars of the {@code io.ortex.ep.cpu.ops}
 * packages, then only read (safe to read from many threads once filled).
 */
public final class OpRegistry {
    /** The {@code untilVersion} of a registration that covers every later opset. */
    public static final int LATEST = Integer.MAX_VALUE;

    private final Map<String, List<Range>> entries = new TreeMap<>();

    /** Creates an empty table. */
    public OpRegistry() {
    }

    private record Range(int sinceVersion, int untilVersion, KernelFactory factory) {
        boolean contains(int opset) {
            return opset >= sinceVersion && opset <= untilVersion;
        }

        boolean overlaps(Range other) {
            return sinceVersion <= other.untilVersion && other.sinceVersion <= untilVersion;
        }

        @Override
        public String toString() {
            return "[" + sinceVersion + ", " + (untilVersion == LATEST ? "latest" : untilVersion) + "]";
        }
    }

    /**
     * Registers a kernel for an op of the default ONNX domain, valid for every opset.
     *
     * @param opType the op type
     * @param factory what makes its kernels
     * @throws IllegalStateException when the op already has a registration
     */
    public void register(String opType, KernelFactory factory) {
        register("", opType, 1, LATEST, factory);
    }

    /**
     * Registers a kernel valid from one opset on.
     *
     * @param domain the domain, {@code ""} for ONNX
     * @param opType the op type
     * @param sinceVersion the first opset of that domain the kernel implements
     * @param factory what makes its kernels
     * @throws IllegalStateException when the range overlaps another registration of the op
     */
    public void register(String domain, String opType, int sinceVersion, KernelFactory factory) {
        register(domain, opType, sinceVersion, LATEST, factory);
    }

    /**
     * Registers a kernel for the opsets {@code [sinceVersion, untilVersion]} of the op's domain, both included.
     *
     * @param domain the domain, {@code ""} for ONNX
     * @param opType the op type
     * @param sinceVersion the first opset the kernel implements, at least 1
     * @param untilVersion the last opset the kernel implements, {@link #LATEST} for every later one
     * @param factory what makes its kernels
     * @throws IllegalArgumentException when the range is empty or starts below 1
     * @throws IllegalStateException when the range overlaps another registration of the op
     */
    public void register(String domain, String opType, int sinceVersion, int untilVersion, KernelFactory factory) {
        String key = key(domain, opType);
        Range range = new Range(sinceVersion, untilVersion, factory);
        if (sinceVersion < 1 || untilVersion < sinceVersion) {
            throw new IllegalArgumentException("op " + key + ": opset range " + range + " is empty or starts below 1");
        }
        List<Range> ranges = entries.computeIfAbsent(key, k -> new ArrayList<>());
        for (Range r : ranges) {
            if (r.overlaps(range)) {
                throw new IllegalStateException("op " + key + ": opset range " + range
                        + " overlaps the registered range " + r);
            }
        }
        ranges.add(range);
    }

    /**
     * Finds the kernel factory for a node, from the registration whose range holds the node's opset.
     *
     * @param node the node
     * @return the factory, or {@code null} when the op (at the node's opset) has no kernel
     */
    public KernelFactory lookup(NodeView node) {
        return lookup(node.domain(), node.opType(), node.opsetVersion());
    }

    /**
     * Finds the kernel factory for an op at one opset of its domain.
     *
     * @param domain the domain, {@code ""} or {@code "ai.onnx"} for ONNX
     * @param opType the op type
     * @param opsetVersion the opset of the domain that the model imports
     * @return the factory, or {@code null} when no registration of the op holds that opset
     */
    public KernelFactory lookup(String domain, String opType, int opsetVersion) {
        for (Range r : entries.getOrDefault(key(domain, opType), List.of())) {
            if (r.contains(opsetVersion)) {
                return r.factory();
            }
        }
        return null;
    }

    /**
     * Lists the registered ops as {@code OpType} or {@code domain::OpType}, each once whatever its ranges.
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
