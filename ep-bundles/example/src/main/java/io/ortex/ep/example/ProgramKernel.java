package io.ortex.ep.example;

import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpContextPayload;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.example.program.Program;
import io.ortex.ep.example.program.ProgramCodec;
import java.util.Optional;

/**
 * The compute kernel of one fused node: runs its {@link Program} on the kernel inputs and returns the outputs, in
 * the fused node's orders. Thread safe, as the program is immutable and each run uses its own slots.
 */
final class ProgramKernel implements ComputeKernel {
    private final String fusedNodeName;
    private final Program program;
    private final boolean shareWeights;

    /**
     * Creates a kernel whose payload holds its weights.
     *
     * @param fusedNodeName the fused node's name, for messages
     * @param program the compiled program
     */
    ProgramKernel(String fusedNodeName, Program program) {
        this(fusedNodeName, program, false);
    }

    /**
     * Creates the kernel.
     *
     * @param fusedNodeName the fused node's name, for messages
     * @param program the compiled program
     * @param shareWeights whether its payload gives the packed weights as shared blobs
     */
    ProgramKernel(String fusedNodeName, Program program, boolean shareWeights) {
        this.fusedNodeName = fusedNodeName;
        this.program = program;
        this.shareWeights = shareWeights;
    }

    /**
     * Gets the program this kernel runs.
     *
     * @return the program
     */
    Program program() {
        return program;
    }

    /**
     * Serializes the program ({@link ProgramCodec}) as the EPContext payload, tagged with the EP version, the
     * emulated architecture and the format; when the session shares EP contexts, each packed weight is a shared blob
     * that the payload names by key.
     */
    @Override
    public Optional<EpContextPayload> epContext() {
        String notes = "program format " + ProgramCodec.FORMAT;
        if (shareWeights) {
            ProgramCodec.Shared shared = ProgramCodec.writeShared(program);
            return Optional.of(new EpContextPayload(shared.bytes(), ExampleEpFactory.VERSION,
                    ExampleEpFactory.HARDWARE_ARCHITECTURE, notes, shared.blobs()));
        }
        return Optional.of(new EpContextPayload(ProgramCodec.write(program), ExampleEpFactory.VERSION,
                ExampleEpFactory.HARDWARE_ARCHITECTURE, notes));
    }

    @Override
    public Tensor[] compute(KernelContext context, Tensor[] inputs) {
        try {
            return program.run(context, inputs);
        } catch (OrtexException e) {
            throw new OrtexException(e.code(), fusedNodeName + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return fusedNodeName + " " + program;
    }
}
