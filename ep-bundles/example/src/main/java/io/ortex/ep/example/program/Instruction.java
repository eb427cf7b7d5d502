package io.ortex.ep.example.program;

import java.util.Arrays;
import java.util.Objects;

/**
 * One operation of a {@link Program}: which op, its attributes, and the slots it reads. Instruction {@code i} of a
 * program writes slot {@code program.firstTemporarySlot() + i}; see {@link Program} for the slot layout.
 *
 * @param op the operation
 * @param attributes its attributes ({@link OpAttributes#NONE} for ops without any)
 * @param inputs the slots of its operands in ONNX input order, {@code -1} for an omitted optional operand
 * @param relu true when a {@code Relu} was fused into this instruction: it is applied to the result in place,
 *     so the intermediate value never gets its own buffer
 */
public record Instruction(OpCode op, OpAttributes attributes, int[] inputs, boolean relu) {
    /**
     * Creates the instruction, copying the operand slots.
     *
     * @param op the operation
     * @param attributes its attributes
     * @param inputs the operand slots
     * @param relu whether a Relu is fused into it
     */
    public Instruction {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(attributes, "attributes");
        inputs = inputs.clone();
    }

    /** {@return a copy of the operand slots} */
    @Override
    public int[] inputs() {
        return inputs.clone();
    }

    /**
     * Gets one operand slot without copying the array.
     *
     * @param index the operand index
     * @return the slot, or {@code -1} for an omitted operand
     */
    public int input(int index) {
        return inputs[index];
    }

    /**
     * Gets the number of operands.
     *
     * @return the operand count
     */
    public int inputCount() {
        return inputs.length;
    }

    /**
     * Gives a copy of this instruction with a Relu fused into it.
     *
     * @return the new instruction
     */
    public Instruction withRelu() {
        return new Instruction(op, attributes, inputs, true);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Instruction i && op == i.op && attributes.equals(i.attributes)
                && Arrays.equals(inputs, i.inputs) && relu == i.relu;
    }

    @Override
    public int hashCode() {
        return Objects.hash(op, attributes, Arrays.hashCode(inputs), relu);
    }

    @Override
    public String toString() {
        return op.onnxName() + (relu ? "+Relu" : "") + Arrays.toString(inputs)
                + (attributes instanceof OpAttributes.None ? "" : " " + attributes);
    }
}
