package io.ortex.ep.example.program;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A compiled partition: what the example EP "uploads to its NPU", run here by host emulation. It is a straight-line
 * list of {@link Instruction}s over numbered slots, each slot holding one tensor:
 * <ol>
 *   <li>slots {@code [0, inputCount)} hold the kernel's inputs, in the fused node's input order;</li>
 *   <li>the next {@code weights().size()} slots hold the {@link PackedWeight}s;</li>
 *   <li>instruction {@code i} writes slot {@link #firstTemporarySlot()}{@code + i}.</li>
 * </ol>
 * An instruction reads only slots before its own, so the list is in topological order, and {@link #outputSlots()}
 * says which slots the kernel returns, in the fused node's output order. Intermediate values never leave the
 * program, and each is dropped after its last reader.
 *
 * <p>Everything in a program is plain data (names, enums with stable codes, records of primitives, float arrays), so
 * it can be written to bytes and read back, for example as the payload of an EPContext node, without the model it
 * came from. Immutable; {@link #run} may be called from several threads at once.
 */
public final class Program {
    private final List<String> inputNames;
    private final List<PackedWeight> weights;
    private final List<Instruction> instructions;
    private final List<String> outputNames;
    private final int[] outputSlots;
    /** For each instruction, the temporary slots whose last reader it is (outputs excluded). */
    private final int[][] releasedAfter;

    /**
     * Creates a program, checking that every slot reference is in range and reads only earlier slots.
     *
     * @param inputNames the names of the kernel's inputs, in order (slot {@code i} holds input {@code i})
     * @param weights the packed weights, in slot order
     * @param instructions the instructions, in execution order
     * @param outputNames the names of the kernel's outputs, in order
     * @param outputSlots the slot of each output
     * @throws IllegalArgumentException when a slot reference is out of order or out of range
     */
    public Program(List<String> inputNames, List<PackedWeight> weights, List<Instruction> instructions,
                   List<String> outputNames, int[] outputSlots) {
        this.inputNames = List.copyOf(inputNames);
        this.weights = List.copyOf(weights);
        this.instructions = List.copyOf(instructions);
        this.outputNames = List.copyOf(outputNames);
        this.outputSlots = outputSlots.clone();
        if (outputNames.size() != outputSlots.length) {
            throw new IllegalArgumentException(outputNames.size() + " output names for " + outputSlots.length
                    + " output slots");
        }
        int[] lastReader = new int[slotCount()];
        Arrays.fill(lastReader, -1);
        for (int i = 0; i < this.instructions.size(); i++) {
            Instruction ins = this.instructions.get(i);
            for (int j = 0; j < ins.inputCount(); j++) {
                int slot = ins.input(j);
                if (slot < -1 || slot >= firstTemporarySlot() + i) {
                    throw new IllegalArgumentException("instruction " + i + " (" + ins + ") reads slot " + slot
                            + ", which is not written before it");
                }
                if (slot >= 0) {
                    lastReader[slot] = i;
                }
            }
        }
        for (int slot : this.outputSlots) {
            if (slot < 0 || slot >= slotCount()) {
                throw new IllegalArgumentException("output slot " + slot + " is out of range");
            }
            lastReader[slot] = Integer.MAX_VALUE;
        }
        this.releasedAfter = releaseLists(lastReader);
    }

    private int[][] releaseLists(int[] lastReader) {
        List<List<Integer>> lists = new ArrayList<>();
        for (int i = 0; i < instructions.size(); i++) {
            lists.add(new ArrayList<>());
        }
        for (int slot = firstTemporarySlot(); slot < slotCount(); slot++) {
            int reader = lastReader[slot];
            if (reader >= 0 && reader != Integer.MAX_VALUE) {
                lists.get(reader).add(slot);
            }
        }
        int[][] out = new int[instructions.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = lists.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        return out;
    }

    /**
     * Gets the names of the kernel's inputs, in the order {@link #run} takes them.
     *
     * @return the input names
     */
    public List<String> inputNames() {
        return inputNames;
    }

    /**
     * Gets the packed weights, in slot order.
     *
     * @return the weights
     */
    public List<PackedWeight> weights() {
        return weights;
    }

    /**
     * Gets the instructions, in execution order.
     *
     * @return the instructions
     */
    public List<Instruction> instructions() {
        return instructions;
    }

    /**
     * Gets the names of the kernel's outputs, in the order {@link #run} returns them.
     *
     * @return the output names
     */
    public List<String> outputNames() {
        return outputNames;
    }

    /**
     * Gets the slot each output is read from.
     *
     * @return a copy of the output slots
     */
    public int[] outputSlots() {
        return outputSlots.clone();
    }

    /**
     * Gets the first slot written by an instruction, the number of inputs plus the number of weights.
     *
     * @return the slot of instruction 0's result
     */
    public int firstTemporarySlot() {
        return inputNames.size() + weights.size();
    }

    /**
     * Gets the number of slots: inputs, weights and one per instruction.
     *
     * @return the slot count
     */
    public int slotCount() {
        return firstTemporarySlot() + instructions.size();
    }

    /**
     * Runs the program.
     *
     * @param context the run's context: its threads are used by the larger kernels
     * @param inputs one float32 tensor per input, in {@link #inputNames()} order
     * @return one tensor per output, in {@link #outputNames()} order
     * @throws InvalidArgumentException when an input is missing, not float32, or of a shape the ops reject
     */
    public Tensor[] run(KernelContext context, Tensor[] inputs) {
        if (inputs.length != inputNames.size()) {
            throw new InvalidArgumentException("the program takes " + inputNames.size() + " inputs, got "
                    + inputs.length);
        }
        Tensor[] slots = new Tensor[slotCount()];
        for (int i = 0; i < inputs.length; i++) {
            Tensor t = inputs[i];
            if (t == null || t.type() != ElementType.FLOAT) {
                throw new InvalidArgumentException("input " + Names.quote(inputNames.get(i))
                        + " must be a float32 tensor, got "
                        + (t == null ? "none" : t.type()));
            }
            slots[i] = t;
        }
        for (int j = 0; j < weights.size(); j++) {
            slots[inputs.length + j] = weights.get(j).value();
        }
        int first = firstTemporarySlot();
        for (int i = 0; i < instructions.size(); i++) {
            slots[first + i] = OpKernels.execute(instructions.get(i), slots, context);
            for (int slot : releasedAfter[i]) {
                slots[slot] = null;
            }
        }
        Tensor[] out = new Tensor[outputSlots.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = slots[outputSlots[i]];
        }
        return out;
    }

    /**
     * Lists the program, one line per input, weight, instruction and output, for logs and for EP authors.
     *
     * @return the listing
     */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < inputNames.size(); i++) {
            sb.append('%').append(i).append(" = input ").append(inputNames.get(i)).append('\n');
        }
        for (int j = 0; j < weights.size(); j++) {
            sb.append('%').append(inputNames.size() + j).append(" = weight ").append(weights.get(j)).append('\n');
        }
        for (int i = 0; i < instructions.size(); i++) {
            sb.append('%').append(firstTemporarySlot() + i).append(" = ").append(instructions.get(i)).append('\n');
        }
        for (int i = 0; i < outputSlots.length; i++) {
            sb.append("output ").append(outputNames.get(i)).append(" = %").append(outputSlots[i]).append('\n');
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "Program(" + inputNames.size() + " inputs, " + weights.size() + " weights, " + instructions.size()
                + " instructions, " + outputNames.size() + " outputs)";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Program p && inputNames.equals(p.inputNames) && instructions.equals(p.instructions)
                && outputNames.equals(p.outputNames) && Arrays.equals(outputSlots, p.outputSlots)
                && weights.size() == p.weights.size();
    }

    @Override
    public int hashCode() {
        return Objects.hash(inputNames, instructions, outputNames, Arrays.hashCode(outputSlots), weights.size());
    }
}
