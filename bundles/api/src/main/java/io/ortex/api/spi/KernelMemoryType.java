package io.ortex.api.spi;

/**
 * Where a registered kernel wants one of its inputs or outputs, the counterpart of ONNX Runtime's {@code OrtMemType}
 * as set by {@code KernelDefBuilder_SetInputMemType} and {@code KernelDefBuilder_SetOutputMemType}.
 *
 * <p>The runtime's plan honours the placement of each input and output of every node run through a kernel registry
 * (see {@link KernelDef#inputMemory(int)}): for an EP whose {@link ExecutionProvider#memoryDevice()} is not host
 * memory, a {@link #DEFAULT} input is copied into the EP's memory where it lives elsewhere, a {@link #CPU_INPUT} is
 * handed over in host memory (copied out of device memory where it lives there, waited for where a stream fills it),
 * and a {@link #CPU_OUTPUT} is placed in host memory: the kernel allocates it on the host
 * ({@link KernelContext#allocate}), host readers take it as it is and readers in device memory get a copy. Values of
 * an EP that works in host memory are on the host whatever the placement, so the three kinds are the same there.
 */
public enum KernelMemoryType {
    /** The EP's own memory ({@code OrtMemTypeDefault}). */
    DEFAULT,
    /** Host memory, for an input the kernel reads on the CPU, such as If's condition ({@code OrtMemTypeCPUInput}). */
    CPU_INPUT,
    /** Host memory, for an output the kernel writes on the CPU ({@code OrtMemTypeCPUOutput}). */
    CPU_OUTPUT
}
