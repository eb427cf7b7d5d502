package io.ortex.ep.example.program;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * Dispatches one {@link Instruction} to its op kernel and applies a fused Relu to the result. Stateless.
 */
final class OpKernels {
    private OpKernels() {
    }

    /**
     * Executes one instruction.
     *
     * @param instruction the instruction
     * @param slots the program's slots, read by the instruction's operand numbers
     * @param context the run's context
     * @return the instruction's result, a new tensor
     * @throws OrtexException when the operands do not fit the op; the message names the op
     */
    static Tensor execute(Instruction instruction, Tensor[] slots, KernelContext context) {
        Tensor result = switch (instruction.op()) {
            case MATMUL -> MatMulKernel.run(operand(instruction, slots, 0), operand(instruction, slots, 1),
                    (MatMulAttributes) instruction.attributes(), context);
            case GEMM -> GemmKernel.run(operand(instruction, slots, 0), operand(instruction, slots, 1),
                    optional(instruction, slots, 2), (GemmAttributes) instruction.attributes(), context);
            case ADD, MUL -> ElementwiseKernels.binary(instruction.op(), operand(instruction, slots, 0),
                    operand(instruction, slots, 1), context);
            case RELU -> ElementwiseKernels.relu(operand(instruction, slots, 0), context);
            case CONV, CONV_NHWC -> ConvKernel.run(operand(instruction, slots, 0), operand(instruction, slots, 1),
                    optional(instruction, slots, 2), (ConvAttributes) instruction.attributes(),
                    instruction.op() == OpCode.CONV_NHWC, context);
        };
        if (instruction.relu()) {
            ElementwiseKernels.reluInPlace(result.floats(), context);
        }
        return result;
    }

    private static Tensor operand(Instruction instruction, Tensor[] slots, int index) {
        Tensor t = optional(instruction, slots, index);
        if (t == null) {
            throw new InvalidArgumentException(instruction.op().onnxName() + ": operand " + index + " is missing");
        }
        return t;
    }

    private static Tensor optional(Instruction instruction, Tensor[] slots, int index) {
        if (index >= instruction.inputCount() || instruction.input(index) < 0) {
            return null;
        }
        return slots[instruction.input(index)];
    }
}
