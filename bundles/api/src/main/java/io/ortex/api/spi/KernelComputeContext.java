package io.ortex.api.spi;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;

/**
 * What the runtime offers a registered kernel ({@link KernelImpl}) during one run: everything of
 * {@link KernelContext}, plus its outputs by index, the counterpart of ONNX Runtime's {@code OrtKernelContext} and
 * its {@code KernelContext_GetOutput}.
 */
public interface KernelComputeContext extends KernelContext {
    /**
     * Gets the buffer for one of the node's outputs. When the kernel's definition lets the output reuse an input
     * ({@link KernelDef.Builder#mayInplace}) and the runtime's plan finds that input read by nobody after this node
     * (produced within the run, not a graph output, not read twice by the node, its buffer held by no other value), the
     * result shares that input's array, so it starts out holding the input's elements and the kernel must read each
     * element before it overwrites it; otherwise it is fresh memory from the run's arena with unspecified elements.
     * Either way the kernel must write every element and return the tensor in its output's position.
     *
     * @param index the output's position among the node's outputs
     * @param type the element type
     * @param shape the dimensions
     * @return the tensor to write
     */
    Tensor output(int index, ElementType type, long... shape);
}
