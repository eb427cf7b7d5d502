package io.ortex.api.spi;

/**
 * Where a registered kernel wants one of its inputs or outputs, the counterpart of ONNX Runtime's {@code OrtMemType}
 * as set by {@code KernelDefBuilder_SetInputMemType} and {@code KernelDefBuilder_SetOutputMemType}.
 *
 * <p>The runtime records the placement of each input and output of every node run through a kernel registry (see
 * {@link KernelDef#inputMemory(int)}); values of an EP whose {@link ExecutionProvider#memoryDevice()} is host memory
 * are on the host whatever the placement, so the three kinds are the same there.
 */
public enum KernelMemoryType {
    /** The EP's own memory ({@code OrtMemTypeDefault}). */
    DEFAULT,
    /** Host memory, for an input the kernel reads on the CPU, such as If's condition ({@code OrtMemTypeCPUInput}). */
    CPU_INPUT,
    /** Host memory, for an output the kernel writes on the CPU ({@code OrtMemTypeCPUOutput}). */
    CPU_OUTPUT
}
