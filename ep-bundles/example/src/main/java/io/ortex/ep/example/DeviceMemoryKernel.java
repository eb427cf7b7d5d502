package io.ortex.ep.example;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpContextPayload;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.TensorAllocator;
import java.util.Optional;

/**
 * A compiled partition of the example EP working in the emulated NPU's memory ({@link DeviceMemory}): it takes its
 * inputs in that memory, refusing tensors on the Java heap (the runtime must have copied them in), runs the program
 * (the "NPU" reading its memory), and returns its outputs in blocks of the same memory, from the environment's shared
 * allocator ({@link KernelContext#allocator}), where the next partition of the EP reads them without a copy.
 * Thread safe.
 */
final class DeviceMemoryKernel implements ComputeKernel {
    private final String fusedNodeName;
    private final ProgramKernel program;

    /**
     * Creates the kernel.
     *
     * @param fusedNodeName the fused node's name, for messages
     * @param program the kernel that runs the program on host tensors
     */
    DeviceMemoryKernel(String fusedNodeName, ProgramKernel program) {
        this.fusedNodeName = fusedNodeName;
        this.program = program;
    }

    @Override
    public Tensor[] compute(KernelContext context, Tensor[] inputs) {
        TensorAllocator allocator = context.allocator(DeviceMemory.NPU_MEMORY).orElseThrow(() ->
                new OrtexException(ErrorCode.FAIL, fusedNodeName + ": the run offers no allocator of "
                        + DeviceMemory.DEVICE.name()));
        Tensor[] host = new Tensor[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            Tensor t = inputs[i];
            if (t != null && !t.isOffHeap()) {
                throw new OrtexException(ErrorCode.INVALID_ARGUMENT, fusedNodeName + ": input " + i
                        + " is on the Java heap, not in " + DeviceMemory.DEVICE.name());
            }
            host[i] = t == null ? null : t.toHeap();
        }
        Tensor[] out = program.compute(context, host);
        Tensor[] device = new Tensor[out.length];
        int i = 0;
        try {
            for (; i < out.length; i++) {
                if (out[i] != null) {
                    device[i] = allocator.allocate(out[i].type(), out[i].shape());
                    out[i].copyTo(device[i].buffer());
                }
            }
        } catch (RuntimeException e) {
            for (Tensor t : device) {
                if (t != null) {
                    t.close();
                }
            }
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, fusedNodeName + ": writing output " + i + " into "
                    + DeviceMemory.DEVICE.name() + " failed: " + e, e);
        }
        return device;
    }

    @Override
    public Optional<EpContextPayload> epContext() {
        return program.epContext();
    }

    /**
     * Gets the kernel that runs the program on host tensors.
     *
     * @return the program's kernel
     */
    ProgramKernel program() {
        return program;
    }

    @Override
    public String toString() {
        return program + " in " + DeviceMemory.DEVICE.name();
    }
}
