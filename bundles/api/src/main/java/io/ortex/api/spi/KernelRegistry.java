package io.ortex.api.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The per-op kernels an EP registers, the counterpart of ONNX Runtime's {@code OrtKernelRegistry}. A node the EP
 * claims on its own ({@link GraphSupport#addSingleNode}) runs through the kernel whose definition matches its domain,
 * op type, opset version and input types, instead of being compiled ({@link ExecutionProvider#compile} is then
 * called only for groups of several nodes). Filled while the EP is made, then read only; thread safe once
 * published through {@link ExecutionProvider#kernelRegistry()}.
 */
public final class KernelRegistry {
    private final List<Entry> entries = Collections.synchronizedList(new ArrayList<>());

    /** Creates an empty registry. Mirrors ONNX Runtime's {@code CreateKernelRegistry}. */
    public KernelRegistry() {
    }

    /**
     * Adds a kernel. Mirrors ONNX Runtime's {@code KernelRegistry_AddKernel}. Definitions of the same op whose opset
     * ranges overlap are allowed when their type constraints tell them apart; the first one added that matches a
     * node wins.
     *
     * @param definition what the kernel serves
     * @param create makes the kernel of a node
     * @return this registry
     */
    public KernelRegistry add(KernelDef definition, KernelCreateFunction create) {
        entries.add(new Entry(definition, create));
        return this;
    }

    /**
     * Lists the kernels in the order they were added.
     * The kernels added with ONNX Runtime's {@code KernelRegistry_AddKernel}.
     *
     * @return a copy of the entries
     */
    public List<Entry> entries() {
        synchronized (entries) {
            return List.copyOf(entries);
        }
    }

    /**
     * One registered kernel.
     * One {@code KernelRegistry_AddKernel} call: a definition and the function that creates the kernel.
     *
     * @param definition what it serves
     * @param create makes the kernel of a node
     */
    public record Entry(KernelDef definition, KernelCreateFunction create) {
        /**
         * Checks the entry.
         *
         * @param definition what it serves
         * @param create makes the kernel of a node
         */
        public Entry {
            Objects.requireNonNull(definition, "definition");
            Objects.requireNonNull(create, "create");
        }
    }
}
