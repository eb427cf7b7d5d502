package io.ortex.ep.cpu;

import io.ortex.api.spi.NodeView;

/**
 * Makes the kernel for one node at compile time. It reads the node's attributes (with the defaults of the node's
 * opset) and may read constant initializers to prepare weights once.
 */
@FunctionalInterface
public interface KernelFactory {
    /**
     * Creates the kernel.
     *
     * @param node the node
     * @return the kernel
     * @throws io.ortex.api.NotImplementedException when an attribute value, opset or type is not supported; the
     *     message names the node and what is unsupported
     * @throws io.ortex.api.InvalidModelException when an attribute is missing or invalid
     */
    CpuKernel create(NodeView node);
}
