package io.ortex.ep.example;

import io.ortex.api.ElementType;
import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpContextPayload;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.TensorAllocator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A compiled partition of the example EP working in the emulated NPU's memory ({@link DeviceMemory}): it takes its
 * inputs in that memory, refusing tensors on the Java heap (the runtime must have copied them in), runs the program
 * (the "NPU" reading its memory), and returns its outputs in blocks of the same memory, from the environment's shared
 * allocator ({@link KernelContext#allocator}), where the next partition of the EP reads them without a copy. In a
 * session with the NPU's stream ({@link KernelContext#syncStream()}) it only allocates the output blocks and queues
 * the program on the stream, whose thread reads the inputs and fills the outputs later: their readers see the
 * results only after waiting for the stream, as on a real accelerator. Thread safe.
 */
final class DeviceMemoryKernel implements ComputeKernel {
    private final String fusedNodeName;
    /** The context of work on the NPU's stream: one thread, fresh memory, nothing of the run that queued it. */
    private static final KernelContext ON_STREAM = new KernelContext() {
        @Override
        public int intraOpThreads() {
            return 1;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            if (count > 0) {
                body.run(0, count);
            }
        }
    };

    private final ProgramKernel program;
    /** The outputs' types and shapes by the inputs' shapes. */
    private final Map<String, Output[]> shapes = new ConcurrentHashMap<>();

    /** The type and shape of an output. */
    private record Output(ElementType type, long[] shape) {
    }

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
        }
        NpuStream stream = context.syncStream().orElse(null) instanceof NpuStream npu ? npu : null;
        if (stream != null) {
            return queue(stream, allocator, inputs);
        }
        for (int i = 0; i < inputs.length; i++) {
            host[i] = inputs[i] == null ? null : inputs[i].toHeap();
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

    /**
     * Queues the program on the NPU's stream: the outputs' blocks are allocated now (their shapes come from
     * {@link #outputShapes}), and filled when the stream runs the program, which reads the inputs' blocks then.
     */
    private Tensor[] queue(NpuStream stream, TensorAllocator allocator, Tensor[] inputs) {
        Output[] shapes = outputShapes(inputs);
        Tensor[] device = new Tensor[shapes.length];
        for (int i = 0; i < shapes.length; i++) {
            if (shapes[i] != null) {
                device[i] = allocator.allocate(shapes[i].type(), shapes[i].shape());
            }
        }
        Tensor[] in = inputs.clone();
        stream.compute(() -> {
            Tensor[] host = new Tensor[in.length];
            for (int i = 0; i < in.length; i++) {
                host[i] = in[i] == null ? null : in[i].toHeap();
            }
            Tensor[] out = program.compute(ON_STREAM, host);
            for (int i = 0; i < out.length; i++) {
                if (out[i] != null) {
                    out[i].copyTo(device[i].buffer());
                }
            }
        });
        return device;
    }

    /**
     * Finds the types and shapes of the outputs for the inputs' shapes, as a real NPU's compiler knows them before the
     * device runs: the emulation runs its program once on zeros of each new set of input shapes, on the calling
     * thread, and remembers the result (its ops' output shapes depend on the input shapes alone). A program that
     * rejects the shapes fails here, on the caller's thread, naming the partition.
     */
    private Output[] outputShapes(Tensor[] inputs) {
        StringBuilder key = new StringBuilder();
        for (Tensor t : inputs) {
            key.append(t == null ? "-" : Tensor.shapeString(t.shape())).append(';');
        }
        return shapes.computeIfAbsent(key.toString(), k -> {
            Tensor[] zeros = new Tensor[inputs.length];
            for (int i = 0; i < inputs.length; i++) {
                zeros[i] = inputs[i] == null ? null : Tensor.zeros(inputs[i].type(), inputs[i].shape());
            }
            Tensor[] out = program.compute(ON_STREAM, zeros);
            Output[] found = new Output[out.length];
            for (int i = 0; i < out.length; i++) {
                found[i] = out[i] == null ? null : new Output(out[i].type(), out[i].shape());
            }
            return found;
        });
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
