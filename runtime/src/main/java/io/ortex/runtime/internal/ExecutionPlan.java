package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimitException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.RunMemory;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The compiled partitions of one graph in an order that respects their dependencies, the bookkeeping that lets a
 * run free each intermediate tensor after its last reader, and the copies between memory devices where a value
 * produced in one EP's memory is read by an EP working in another. Immutable; one plan serves every run.
 */
final class ExecutionPlan {
    /**
     * One compiled partition: its kernel, where its inputs come from, what must be copied to its memory first, and
     * what can be freed after it.
     */
    record Step(String name, String ep, ComputeKernel kernel, String[] inputs, String[] outputs,
                String[] freeAfter, Copy[] copies) {
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

    private final List<Step> steps;
    private final Map<String, Copy> outputCopies;

    private ExecutionPlan(List<Step> steps, Map<String, Copy> outputCopies) {
        this.steps = steps;
        this.outputCopies = outputCopies;
    }

    /**
     * Orders the compiled groups and computes value lifetimes.
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
        for (Compiled c : ordered) {
            for (String out : c.node().outputNames()) {
                placed.put(out, c.device());
            }
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
            List<String> free = new ArrayList<>();
            for (String in : new HashSet<>(c.node().inputNames())) {
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
            steps.add(new Step(c.node().name(), c.ep(), c.kernel(), c.node().inputNames().toArray(String[]::new),
                    c.node().outputNames().toArray(String[]::new), free.toArray(String[]::new), copies));
        }
        Map<String, Copy> outputCopies = new HashMap<>();
        for (String out : graphOutputs) {
            MemoryDevice from = placed.getOrDefault(out, MemoryDevice.CPU);
            if (!from.equals(MemoryDevice.CPU)) {
                outputCopies.put(out, new Copy(transfers.find(from, MemoryDevice.CPU), from, MemoryDevice.CPU));
            }
        }
        return new ExecutionPlan(List.copyOf(steps), Map.copyOf(outputCopies));
    }

    /**
     * A compiled group: its fused node, its EP's name and memory device, its kernel, and the position of its first
     * node in the graph.
     */
    record Compiled(FusedNode node, String ep, MemoryDevice device, ComputeKernel kernel, int firstNode) {
    }

    /**
     * Topological order of the groups, preferring among the ready ones the group whose first node comes first; linear
     * in the groups and their inputs but for the heap.
     */
    private static List<Compiled> order(List<Compiled> fused) {
        Map<String, Integer> producer = new HashMap<>();
        for (int i = 0; i < fused.size(); i++) {
            for (String out : fused.get(i).node().outputNames()) {
                producer.put(out, i);
            }
        }
        int[] pending = new int[fused.size()];
        List<List<Integer>> dependents = new ArrayList<>(fused.size());
        for (int i = 0; i < fused.size(); i++) {
            dependents.add(new ArrayList<>(1));
        }
        for (int i = 0; i < fused.size(); i++) {
            Set<Integer> waitsFor = new HashSet<>();
            for (String in : fused.get(i).node().inputNames()) {
                Integer p = producer.get(in);
                if (p != null && p != i && waitsFor.add(p)) {
                    pending[i]++;
                    dependents.get(p).add(i);
                }
            }
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>(Comparator
                .comparingInt((Integer i) -> fused.get(i).firstNode()).thenComparingInt(i -> i));
        for (int i = 0; i < fused.size(); i++) {
            if (pending[i] == 0) {
                ready.add(i);
            }
        }
        List<Compiled> done = new ArrayList<>(fused.size());
        while (!ready.isEmpty()) {
            int next = ready.poll();
            done.add(fused.get(next));
            for (int d : dependents.get(next)) {
                if (--pending[d] == 0) {
                    ready.add(d);
                }
            }
        }
        if (done.size() != fused.size()) {
            throw new OrtexException(ErrorCode.INVALID_GRAPH, "the partitions depend on each other in a cycle");
        }
        return done;
    }

    List<Step> steps() {
        return steps;
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
     * @param values the graph inputs and constants, by name; filled with every value computed
     * @param context the kernels' context
     */
    void execute(Map<String, Tensor> values, KernelContext context) {
        RunMemory.Budget budget = RunMemory.current();
        for (Step s : steps) {
            Tensor[] in = new Tensor[s.inputs().length];
            for (int i = 0; i < in.length; i++) {
                in[i] = values.get(s.inputs()[i]);
                Copy copy = s.copies()[i];
                if (copy != null && in[i] != null) {
                    in[i] = copy.transfer().copy(in[i], copy.source(), copy.target());
                }
            }
            Tensor[] out = compute(s, context, in);
            if (out == null || out.length != s.outputs().length) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "partition " + Names.quote(s.name()) + " of EP "
                        + s.ep() + " returned " + (out == null ? "nothing" : out.length + " outputs") + ", expected "
                        + s.outputs().length);
            }
            for (int i = 0; i < out.length; i++) {
                if (out[i] != null) {
                    values.put(s.outputs()[i], out[i]);
                    if (budget != null) {
                        budget.hold(RunMemory.bytes(out[i]));
                    }
                }
            }
            for (String f : s.freeAfter()) {
                Tensor freed = values.remove(f);
                if (budget != null && freed != null) {
                    budget.release(RunMemory.bytes(freed));
                }
            }
        }
    }

    /**
     * Runs one step's kernel. What the kernel throws beyond the runtime's own exceptions (an EP's bug) fails this run
     * only, naming the partition and its EP; running out of memory does too, since the failed allocation holds
     * nothing.
     */
    private static Tensor[] compute(Step s, KernelContext context, Tensor[] in) {
        try {
            return s.kernel().compute(context, in);
        } catch (OrtexException e) {
            throw e;
        } catch (OutOfMemoryError e) {
            throw new ResourceLimitException(ErrorCode.RUNTIME_EXCEPTION, "partition " + Names.quote(s.name())
                    + " of EP " + s.ep() + " ran out of memory (" + e.getMessage() + "); give the JVM more heap (-Xmx)"
                    + " or limit the run (" + ResourceLimits.RUN_BYTES + ")", null);
        } catch (RuntimeException | StackOverflowError e) {
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "partition " + Names.quote(s.name()) + " of EP "
                    + s.ep() + " failed: " + e, e);
        }
    }

    static List<String> names(List<ValueView> values) {
        List<String> names = new ArrayList<>(values.size());
        for (ValueView v : values) {
            names.add(v.name());
        }
        return names;
    }
}
