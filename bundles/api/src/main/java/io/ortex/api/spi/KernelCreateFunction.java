package io.ortex.api.spi;

/**
 * Creates the kernel of one node from a registered {@link KernelDef}, the counterpart of ONNX Runtime's
 * {@code OrtKernelCreateFunc}. Called once per node at session creation, from the thread that creates the session;
 * an exception fails the session naming the node.
 */
@FunctionalInterface
public interface KernelCreateFunction {
    /**
     * Creates the kernel.
     *
     * @param info the node and its matched definition
     * @return the kernel, owned by the runtime from now on
     */
    KernelImpl create(KernelInfo info);
}
