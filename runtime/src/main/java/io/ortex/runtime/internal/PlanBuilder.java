package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.ValueCopy;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.KernelMemoryType;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.SyncStream;
import io.ortex.runtime.internal.ExecutionPlan.Compiled;
import io.ortex.runtime.internal.ExecutionPlan.Copy;
import io.ortex.runtime.internal.ExecutionPlan.Memory;
import io.ortex.runtime.internal.ExecutionPlan.Step;
import io.ortex.runtime.internal.ExecutionPlan.Transfers;
import io.ortex.runtime.internal.graph.DependencyOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Builds an {@link ExecutionPlan} from a graph's compiled partitions: orders them, places every value in the memory
 * of the EP that produces it, plans the copies between memories, gives every value and copy a slot and works out
 * when each is freed.
 */
final class PlanBuilder {
    private PlanBuilder() {
    }

    /**
     * Orders the compiled groups, places every value in the memory of the EP that produces it (host memory for graph
     * inputs and constants), plans one copy per value and other memory it is read in (made before its first reader
     * there; a constant's once at session creation, see {@link ExecutionPlan#initializerCopies()}), gives every value
     * and copy a slot, and computes their lifetimes.
     *
     * @param fused the fused nodes with their EP names and kernels, in any order
     * @param keep values never freed during a run (graph outputs, constants)
     * @param constants the values fixed for the session's life (initializers no caller can override)
     * @param graphOutputs the graph's outputs, which callers receive in host memory
     * @param transfers finds the copies between memory devices
     * @return the plan
     */
    static ExecutionPlan build(List<Compiled> fused, Set<String> keep, Set<String> constants,
                               List<String> graphOutputs, Transfers transfers) {
        List<Compiled> ordered = order(fused);
        Map<String, MemoryDevice> placed = new HashMap<>();
        for (Compiled c : ordered) {
            List<String> outs = c.node().outputNames();
            for (int o = 0; o < outs.size(); o++) {
                placed.put(outs.get(o), outputDevice(c, o));
            }
        }
        Map<String, Integer> slots = new LinkedHashMap<>();
        Set<String> keepAll = new HashSet<>(keep);
        Set<String> ownedNames = new HashSet<>();
        // per step: the names it reads (a copy's name where it reads a value in another memory), and the copies it
        // makes; every copy by its name
        List<String[]> reads = new ArrayList<>(ordered.size());
        List<PlannedCopy[]> planned = new ArrayList<>(ordered.size());
        Map<String, PlannedCopy> copyByName = new LinkedHashMap<>();
        List<String> initializerCopyNames = new ArrayList<>();
        // per alias output, the value whose buffer it is (a value that is no alias itself)
        Map<String, String> origins = new HashMap<>();
        for (Compiled c : ordered) {
            List<String> in = c.node().inputNames();
            String[] r = new String[in.size()];
            PlannedCopy[] made = new PlannedCopy[in.size()];
            for (int k = 0; k < r.length; k++) {
                String name = in.get(k);
                r[k] = name;
                if (name.isEmpty()) {
                    continue;
                }
                slots.putIfAbsent(name, slots.size());
                MemoryDevice from = placed.getOrDefault(name, MemoryDevice.CPU);
                MemoryDevice to = inputDevice(c, k);
                if (from.equals(to)) {
                    continue;
                }
                Memory target = transfers.memory(to);
                String copyName = name + "@" + target.name();
                r[k] = copyName;
                if (copyByName.containsKey(copyName)) {
                    continue;
                }
                boolean constant = constants.contains(name);
                PlannedCopy copy = new PlannedCopy(name, copyName, transfers.find(from, to),
                        transfers.memory(from), target, constant ? ValueCopy.Kind.INITIALIZER : ValueCopy.Kind.RUN,
                        copyStream(transfers, from, to));
                copyByName.put(copyName, copy);
                slots.putIfAbsent(copyName, slots.size());
                if (constant) {
                    keepAll.add(copyName);
                    initializerCopyNames.add(copyName);
                } else {
                    made[k] = copy;
                    if (!to.equals(MemoryDevice.CPU)) {
                        ownedNames.add(copyName);
                    }
                }
            }
            reads.add(r);
            planned.add(made);
            List<String> outs = c.node().outputNames();
            for (int o = 0; o < outs.size(); o++) {
                String out = outs.get(o);
                slots.putIfAbsent(out, slots.size());
                if (!outputDevice(c, o).equals(MemoryDevice.CPU)) {
                    ownedNames.add(out);
                }
                int f = c.kernel() instanceof RegistryKernel rk ? rk.aliasInput(o) : -1;
                if (f >= 0 && !r[f].isEmpty() && !out.isEmpty()) {
                    origins.put(out, origins.getOrDefault(r[f], r[f]));
                }
            }
        }
        for (String out : graphOutputs) {
            slots.putIfAbsent(out, slots.size());
        }
        Map<String, Integer> lastUse = new HashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            for (PlannedCopy made : planned.get(i)) {
                if (made != null) {
                    lastUse.put(made.value(), i);
                }
            }
            for (String in : reads.get(i)) {
                lastUse.put(in, i);
            }
        }
        List<Set<String>> frees = frees(ordered, lastUse, keepAll, origins, slots.keySet());
        List<Copy> allCopies = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < ordered.size(); i++) {
            Compiled c = ordered.get(i);
            Set<String> free = frees.get(i);
            Copy[] stepCopies = new Copy[reads.get(i).length];
            for (int k = 0; k < stepCopies.length; k++) {
                PlannedCopy made = planned.get(i)[k];
                if (made != null) {
                    stepCopies[k] = made.copy(slots);
                    allCopies.add(stepCopies[k]);
                }
            }
            String[] inputs = c.node().inputNames().toArray(String[]::new);
            String[] outputs = c.node().outputNames().toArray(String[]::new);
            String[] freed = free.toArray(String[]::new);
            SyncStream[] inputStreams = new SyncStream[inputs.length];
            for (int k = 0; k < inputs.length; k++) {
                inputStreams[k] = transfers.stream(inputDevice(c, k));
            }
            steps.add(new Step(c.node().name(), c.ep(), c.ops(), c.kernel(), inputs, outputs, freed, stepCopies,
                    slotsOf(reads.get(i), slots), slotsOf(outputs, slots), slotsOf(freed, slots),
                    transfers.stream(c.device()), inputStreams));
        }
        List<Copy> initializers = new ArrayList<>();
        for (String name : initializerCopyNames) {
            Copy copy = copyByName.get(name).copy(slots);
            initializers.add(copy);
        }
        Map<String, Copy> outputCopies = new LinkedHashMap<>();
        for (String out : graphOutputs) {
            MemoryDevice from = placed.getOrDefault(out, MemoryDevice.CPU);
            if (!from.equals(MemoryDevice.CPU) && !outputCopies.containsKey(out)) {
                Memory host = transfers.memory(MemoryDevice.CPU);
                Copy copy = new Copy(out, transfers.find(from, MemoryDevice.CPU), transfers.memory(from), host,
                        ValueCopy.Kind.OUTPUT, slots.get(out), -1, new AtomicLong(), new AtomicLong(),
                        copyStream(transfers, from, MemoryDevice.CPU));
                outputCopies.put(out, copy);
            }
        }
        List<Copy> every = new ArrayList<>(initializers);
        every.addAll(allCopies);
        every.addAll(outputCopies.values());
        boolean[] owned = new boolean[slots.size()];
        for (Map.Entry<String, Integer> e : slots.entrySet()) {
            // an alias is owned where the value whose buffer it is is: a view of a caller's input or a constant is not
            owned[e.getValue()] = ownedNames.contains(origins.getOrDefault(e.getKey(), e.getKey()));
        }
        Set<String> direct = new HashSet<>(graphOutputs);
        for (String[] r : reads) {
            direct.addAll(List.of(r));
        }
        for (PlannedCopy c : copyByName.values()) {
            if (c.kind() != ValueCopy.Kind.INITIALIZER) {
                direct.add(c.value());
            }
        }
        return new ExecutionPlan(List.copyOf(steps), Collections.unmodifiableMap(slots),
                Collections.unmodifiableMap(outputCopies), List.copyOf(initializers), List.copyOf(every), owned,
                Set.copyOf(direct));
    }

    /**
     * Computes the names each step frees: a value, with every value sharing its buffer (an alias output and the
     * input it is a view of, and so on), after the last step that reads or makes any of them (or, read by nobody,
     * after its producer); none of a buffer any of whose values the plan keeps.
     */
    private static List<Set<String>> frees(List<Compiled> ordered, Map<String, Integer> lastUse, Set<String> keepAll,
                                           Map<String, String> origins, Set<String> names) {
        Map<String, Integer> use = new HashMap<>(lastUse);
        for (int i = 0; i < ordered.size(); i++) {
            for (String out : ordered.get(i).node().outputNames()) {
                use.putIfAbsent(out, i);
            }
        }
        Map<String, Integer> bufferUse = new HashMap<>();
        Set<String> kept = new HashSet<>();
        for (Map.Entry<String, Integer> e : use.entrySet()) {
            bufferUse.merge(origins.getOrDefault(e.getKey(), e.getKey()), e.getValue(), Math::max);
        }
        for (String k : keepAll) {
            kept.add(origins.getOrDefault(k, k));
        }
        List<Set<String>> frees = new ArrayList<>(ordered.size());
        for (int i = 0; i < ordered.size(); i++) {
            frees.add(new LinkedHashSet<>());
        }
        for (String name : names) {
            String origin = origins.getOrDefault(name, name);
            if (!name.isEmpty() && use.containsKey(name) && !kept.contains(origin)) {
                frees.get(bufferUse.get(origin)).add(name);
            }
        }
        return frees;
    }

    /**
     * Gets where a step reads one of its inputs: host memory for a registered kernel's {@code CPU_INPUT}, else its
     * EP's memory.
     */
    private static MemoryDevice inputDevice(Compiled c, int input) {
        return c.kernel() instanceof RegistryKernel k && k.inputPlacement(input) == KernelMemoryType.CPU_INPUT
                ? MemoryDevice.CPU : c.device();
    }

    /**
     * Gets where a step's output is: where its input is read for an alias, host memory for a registered kernel's
     * {@code CPU_OUTPUT}, else its EP's memory.
     *
     * @throws OrtexException for an alias of an input read in another memory than the output's declared one
     */
    private static MemoryDevice outputDevice(Compiled c, int output) {
        if (!(c.kernel() instanceof RegistryKernel k)) {
            return c.device();
        }
        MemoryDevice declared = k.outputPlacement(output) == KernelMemoryType.CPU_OUTPUT ? MemoryDevice.CPU
                : c.device();
        int alias = k.aliasInput(output);
        if (alias >= 0) {
            MemoryDevice read = inputDevice(c, alias);
            if (!read.equals(declared) && k.outputPlacement(output) == KernelMemoryType.CPU_OUTPUT) {
                throw new OrtexException(ErrorCode.INVALID_GRAPH, "node " + Names.quote(c.node().name()) + " of EP "
                        + c.ep() + ": its kernel " + k.definition() + " declares output " + output + " CPU_OUTPUT "
                        + "and an alias of an input it reads in device memory");
            }
            return read;
        }
        return declared;
    }

    /**
     * A copy the plan makes, before its slots are known.
     *
     * @param value the value copied
     * @param name the copy's own name ({@code value@memory})
     * @param transfer the transfer that makes it
     * @param source the memory the value is in
     * @param target the memory it is copied into
     * @param kind what the copy is for
     * @param stream the stream it is queued on, or {@code null}
     */
    private record PlannedCopy(String value, String name, DataTransfer transfer, Memory source, Memory target,
                               ValueCopy.Kind kind, SyncStream stream) {
        Copy copy(Map<String, Integer> slots) {
            return new Copy(value, transfer, source, target, kind, slots.get(value), slots.get(name),
                    new AtomicLong(), new AtomicLong(), stream);
        }
    }

    /** The stream a copy is queued on: the target memory's, else the source memory's, else none. */
    private static SyncStream copyStream(Transfers transfers, MemoryDevice from, MemoryDevice to) {
        SyncStream target = transfers.stream(to);
        return target != null ? target : transfers.stream(from);
    }

    private static int[] slotsOf(String[] names, Map<String, Integer> slots) {
        int[] out = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = names[i].isEmpty() ? -1 : slots.get(names[i]);
        }
        return out;
    }

    /**
     * Topological order of the groups, preferring among the ready ones the group whose first node comes first; linear
     * in the groups and their inputs but for the heap.
     */
    private static List<Compiled> order(List<Compiled> fused) {
        List<Integer> order = DependencyOrder.of(fused.stream().map(c -> c.node().outputNames()).toList(),
                fused.stream().map(c -> c.node().inputNames()).toList(),
                Comparator.comparingInt((Integer i) -> fused.get(i).firstNode()).thenComparingInt(i -> i));
        if (order.size() != fused.size()) {
            throw new OrtexException(ErrorCode.INVALID_GRAPH, "the partitions depend on each other in a cycle");
        }
        return order.stream().map(fused::get).toList();
    }
}
