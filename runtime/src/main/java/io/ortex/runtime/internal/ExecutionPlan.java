package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The compiled partitions of one graph in an order that respects their dependencies, every value given a slot in a
 * run's value table, the bookkeeping that frees each intermediate after its last reader (so the run's
 * {@link RunArena} can recycle its memory), and the copies between memory devices where a value produced in one
 * EP's memory is read by an EP working in another. Immutable; one plan serves every run.
 */
final class ExecutionPlan {
    /**
     * One compiled partition: its kernel, the slots of its inputs and outputs (-1 for an omitted optional input or
     * an output nobody reads), what must be copied to its memory first, and the slots freed after it. The names are
     * kept for diagnostics and the profiler.
     *
     * @param name the fused node's name
     * @param ep the EP that compiled it
     * @param ops the op types of its nodes, joined by {@code +}
     * @param kernel the compiled kernel
     * @param inputs the fused node's input names
     * @param outputs the fused node's output names
     * @param freeAfter the names freed after this step
     * @param copies per input, the copy into this EP's memory, or {@code null}
     * @param inputSlots per input, its slot
     * @param outputSlots per output, its slot
     * @param freeSlots the slots freed after this step
     */
    record Step(String name, String ep, String ops, ComputeKernel kernel, String[] inputs, String[] outputs,
                String[] freeAfter, Copy[] copies, int[] inputSlots, int[] outputSlots, int[] freeSlots) {
    }

    /**
     * A copy of an input from the memory it was produced in to the memory of the EP that reads it.
     *
     * @param transfer the data transfer that copies it
     * @param source where the value is
     * @param target where the reader needs it
     */
    record Copy(DataTransfer transfer, MemoryDevice source, MemoryDevice target) {
    }

    /** Finds the data transfer between two memory devices. */
    @FunctionalInterface
    interface Transfers {
        /**
         * Finds a transfer.
         *
         * @param source where a value is
         * @param target where it must go
         * @return the transfer
         * @throws OrtexException when no EP of the session can copy between them
         */
        DataTransfer find(MemoryDevice source, MemoryDevice target);
    }

    /**
     * What one execution needs besides the values: the kernels' context, the run's memory, and the profiler.
     *
     * @param context the kernels' context
     * @param arena the run's memory
     * @param profiler records one event per step, or {@code null}
     */
    record Run(KernelContext context, RunArena arena, SessionProfiler profiler) {
    }

    private final List<Step> steps;
    private final Map<String, Integer> slots;
    private final Map<String, Copy> outputCopies;

    private ExecutionPlan(List<Step> steps, Map<String, Integer> slots, Map<String, Copy> outputCopies) {
        this.steps = steps;
        this.slots = slots;
        this.outputCopies = outputCopies;
    }

    /**
     * Orders the compiled groups, gives every value a slot, and computes value lifetimes.
     *
     * @param fused the fused nodes with their EP names and kernels, in any order
     * @param keep values never freed during a run (graph outputs, constants)
     * @param graphOutputs the graph's outputs, which callers receive in host memory
     * @param transfers finds the copies between memory devices
     * @return the plan
     */
    static ExecutionPlan build(List<Compiled> fused, Set<String> keep, List<String> graphOutputs,
                               Transfers transfers) {
        List<Compiled> ordered = order(fused);
        Map<String, MemoryDevice> placed = new HashMap<>();
        Map<String, Integer> slots = new LinkedHashMap<>();
        for (Compiled c : ordered) {
            for (String in : c.node().inputNames()) {
                slots.putIfAbsent(in, slots.size());
            }
            for (String out : c.node().outputNames()) {
                placed.put(out, c.device());
                slots.putIfAbsent(out, slots.size());
            }
        }
        for (String out : graphOutputs) {
            slots.putIfAbsent(out, slots.size());
        }
        Map<String, Integer> lastUse = new HashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            for (String in : ordered.get(i).node().inputNames()) {
                lastUse.put(in, i);
            }
        }
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < ordered.size(); i++) {
            Compiled c = ordered.get(i);
            Set<String> free = new LinkedHashSet<>();
            for (String in : c.node().inputNames()) {
                if (lastUse.get(in) == i && !keep.contains(in)) {
                    free.add(in);
                }
            }
            for (String out : c.node().outputNames()) {
                if (!lastUse.containsKey(out) && !keep.contains(out)) {
                    free.add(out);
                }
            }
            Copy[] copies = new Copy[c.node().inputNames().size()];
            for (int k = 0; k < copies.length; k++) {
                MemoryDevice from = placed.getOrDefault(c.node().inputNames().get(k), MemoryDevice.CPU);
                if (!from.equals(c.device())) {
                    copies[k] = new Copy(transfers.find(from, c.device()), from, c.device());
                }
            }
            String[] inputs = c.node().inputNames().toArray(String[]::new);
            String[] outputs = c.node().outputNames().toArray(String[]::new);
            String[] freed = free.toArray(String[]::new);
            steps.add(new Step(c.node().name(), c.ep(), c.ops(), c.kernel(), inputs, outputs, freed, copies,
                    slotsOf(inputs, slots), slotsOf(outputs, slots), slotsOf(freed, slots)));
        }
        Map<String, Copy> outputCopies = new HashMap<>();
        for (String out : graphOutputs) {
            MemoryDevice from = placed.getOrDefault(out, MemoryDevice.CPU);
            if (!from.equals(MemoryDevice.CPU)) {
                outputCopies.put(out, new Copy(transfers.find(from, MemoryDevice.CPU), from, MemoryDevice.CPU));
            }
        }
        return new ExecutionPlan(List.copyOf(steps), Collections.unmodifiableMap(slots), Map.copyOf(outputCopies));
    }

    private static int[] slotsOf(String[] names, Map<String, Integer> slots) {
        int[] out = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = names[i].isEmpty() ? -1 : slots.get(names[i]);
        }
        return out;
    }

    /**
     * A compiled group: its fused node, its EP's name and memory device, its kernel, the position of its first node
     * in the graph, and its nodes' op types.
     *
     * @param node the fused node
     * @param ep the EP's name
     * @param device the EP's memory
     * @param kernel the compiled kernel
     * @param firstNode the position of the group's first node in the graph
     * @param ops the op types of the group's nodes, joined by {@code +}
     */
    record Compiled(FusedNode node, String ep, MemoryDevice device, ComputeKernel kernel, int firstNode,
                    String ops) {
    }

    /** Topological order of the groups, preferring the group whose first node comes first. */
    private static List<Compiled> order(List<Compiled> fused) {
        Map<String, Compiled> producer = new HashMap<>();
        for (Compiled c : fused) {
            for (String out : c.node().outputNames()) {
                producer.put(out, c);
            }
        }
        List<Compiled> pending = new ArrayList<>(fused);
        pending.sort((a, b) -> Integer.compare(a.firstNode(), b.firstNode()));
        List<Compiled> done = new ArrayList<>();
        Set<Compiled> doneSet = new HashSet<>();
        while (!pending.isEmpty()) {
            Compiled next = null;
            for (Compiled c : pending) {
                boolean ready = true;
                for (String in : c.node().inputNames()) {
                    Compiled p = producer.get(in);
                    if (p != null && p != c && !doneSet.contains(p)) {
                        ready = false;
                        break;
                    }
                }
                if (ready) {
                    next = c;
                    break;
                }
            }
            if (next == null) {
                throw new OrtexException(ErrorCode.INVALID_GRAPH, "the partitions depend on each other in a cycle");
            }
            pending.remove(next);
            done.add(next);
            doneSet.add(next);
        }
        return done;
    }

    List<Step> steps() {
        return steps;
    }

    /**
     * Gets the number of slots a run's value table needs.
     *
     * @return the slot count
     */
    int slotCount() {
        return slots.size();
    }

    /**
     * Gets the slot of a value.
     *
     * @param name the value's name
     * @return its slot, or -1 when no step reads or writes it and it is no graph output
     */
    int slot(String name) {
        Integer s = slots.get(name);
        return s == null ? -1 : s;
    }

    /**
     * Brings a graph output into host memory when the EP that produced it works in its own memory.
     *
     * @param name the output's name
     * @param value the value as produced
     * @return the value in host memory
     */
    Tensor toHost(String name, Tensor value) {
        Copy copy = outputCopies.get(name);
        return copy == null || value == null ? value : copy.transfer().copy(value, copy.source(), copy.target());
    }

    /**
     * Runs every step.
     *
     * @param values the value table: graph inputs and constants in their slots; filled with every value computed,
     *     and emptied of each value after its last reader
     * @param run the kernels' context, the run's memory and the profiler
     */
    void execute(Tensor[] values, Run run) {
        RunArena arena = run.arena();
        SessionProfiler profiler = run.profiler();
        for (Step s : steps) {
            int[] inSlots = s.inputSlots();
            Tensor[] in = new Tensor[inSlots.length];
            for (int i = 0; i < in.length; i++) {
                in[i] = inSlots[i] < 0 ? null : values[inSlots[i]];
                Copy copy = s.copies()[i];
                if (copy != null && in[i] != null) {
                    in[i] = copy.transfer().copy(in[i], copy.source(), copy.target());
                }
            }
            long start = profiler == null ? 0 : System.nanoTime();
            arena.beginStep();
            Tensor[] out;
            try {
                out = s.kernel().compute(run.context(), in);
                if (out == null || out.length != s.outputs().length) {
                    throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "partition '" + s.name() + "' of EP "
                            + s.ep() + " returned " + (out == null ? "nothing" : out.length + " outputs")
                            + ", expected " + s.outputs().length);
                }
                int[] outSlots = s.outputSlots();
                for (int i = 0; i < out.length; i++) {
                    if (out[i] != null) {
                        values[outSlots[i]] = out[i];
                        arena.hold(out[i]);
                    }
                }
                for (int f : s.freeSlots()) {
                    arena.drop(values[f]);
                    values[f] = null;
                }
            } finally {
                arena.endStep();
            }
            if (profiler != null) {
                profiler.step(s, start, System.nanoTime(), in, out);
            }
        }
    }

    static List<String> names(List<ValueView> values) {
        List<String> names = new ArrayList<>(values.size());
        for (ValueView v : values) {
            names.add(v.name());
        }
        return names;
    }

    static int firstIndex(List<NodeView> graphOrder, List<NodeView> group) {
        Set<NodeView> members = new HashSet<>(group);
        for (int i = 0; i < graphOrder.size(); i++) {
            if (members.contains(graphOrder.get(i))) {
                return i;
            }
        }
        return Integer.MAX_VALUE;
    }

    /**
     * Joins the op types of a group's nodes, for the profiler.
     *
     * @param nodes the group's nodes
     * @return {@code MatMul} for one node, {@code MatMul+Add} for a fused pair
     */
    static String ops(List<NodeView> nodes) {
        StringBuilder b = new StringBuilder();
        for (NodeView n : nodes) {
            if (b.length() > 0) {
                b.append('+');
            }
            b.append(n.opType());
        }
        return b.toString();
    }
}
