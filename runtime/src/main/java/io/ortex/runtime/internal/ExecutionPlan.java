package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimitException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.RunMemory;
import io.ortex.api.Tensor;
import io.ortex.api.ValueCopy;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.KernelMemoryType;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.SyncNotification;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The compiled partitions of one graph in an order that respects their dependencies, every value given a slot in a
 * run's value table, the bookkeeping that frees each intermediate after its last reader (so the run's
 * {@link RunArena} can recycle its memory), and the copies between memory devices where a value produced in one
 * EP's memory is read by an EP working in another: one per value and memory it is read in, made before its first
 * reader there and freed after its last; a constant's made once per session; a graph output's to host memory before
 * the caller gets it. Steps of stream-aware EPs and copies to or from their memory are queued on the session's
 * streams, and a value read on another stream or by the host is waited for first ({@link StreamOrder}). Values a
 * run makes in an EP's own memory are closed (given back to their allocator) when freed, or, in a run with streams,
 * at its end. A node run through an EP's kernel registry has its inputs and outputs placed as its kernel's definition
 * says (a {@code CPU_INPUT} read, a {@code CPU_OUTPUT} made, in host memory), and an output its definition declares an
 * alias of an input shares that input's buffer: the plan frees them together, after the last reader of either.
 * Immutable but for the copies' counters; one plan serves every run.
 */
final class ExecutionPlan {
    /**
     * One compiled partition: its kernel, the slots of its inputs and outputs (-1 for an omitted optional input or
     * an output nobody reads), the copies to make into its memory first, and the slots freed after it. The names are
     * kept for diagnostics and the profiler.
     *
     * @param name the fused node's name
     * @param ep the EP that compiled it
     * @param ops the op types of its nodes, joined by {@code +}
     * @param kernel the compiled kernel
     * @param inputs the fused node's input names
     * @param outputs the fused node's output names
     * @param freeAfter the names freed after this step
     * @param copies per input, the copy into this EP's memory that this step makes (being the first step to read
     *     that value in that memory), or {@code null}
     * @param inputSlots per input, its slot (the slot of its copy where it is read in another memory)
     * @param outputSlots per output, its slot
     * @param freeSlots the slots freed after this step
     * @param stream the session's stream of the EP's memory, where a stream-aware EP queues the step's work, or
     *     {@code null}
     * @param inputStreams per input, the stream that reads it ({@code null}: the host, as for a registered kernel's
     *     {@code CPU_INPUT}), which waits for it where another stream produces it; every output, a {@code CPU_OUTPUT}
     *     too, counts as produced on {@code stream}, which the kernel may have queued its writing on
     */
    record Step(String name, String ep, String ops, ComputeKernel kernel, String[] inputs, String[] outputs,
                String[] freeAfter, Copy[] copies, int[] inputSlots, int[] outputSlots, int[] freeSlots,
                SyncStream stream, SyncStream[] inputStreams) {
    }

    /**
     * A memory of the session: its name for reports, its device, and the shared allocators of copies into it
     * ({@code null} for host memory, or for an EP memory its factory declares no allocator for).
     *
     * @param name the memory's name, {@code Cpu} for host memory
     * @param device the memory device
     * @param allocator the allocator of values copied in during runs, or {@code null}
     * @param readOnly the allocator of initializers copied in at session creation, or {@code null}
     */
    record Memory(String name, MemoryDevice device, TensorAllocator allocator, TensorAllocator readOnly) {
        /** Host memory. */
        static final Memory CPU = new Memory(MemoryInfo.CPU.name(), MemoryDevice.CPU, null, null);
    }

    /**
     * A copy of a value from the memory it was produced in to a memory where an EP reads it (or to host memory for
     * the caller), made once per run and target memory (once per session for an initializer), counted.
     *
     * @param value the value's name
     * @param transfer the data transfer that copies it
     * @param source where the value is
     * @param target where the reader needs it
     * @param kind when the copy is made
     * @param sourceSlot the value's slot
     * @param targetSlot the copy's slot, -1 for a graph output's copy, which goes to the caller
     * @param count the copies made
     * @param bytes the bytes they moved
     * @param stream the stream the copy is queued on (the target memory's, else the source memory's), or {@code null}
     */
    record Copy(String value, DataTransfer transfer, Memory source, Memory target, ValueCopy.Kind kind,
                int sourceSlot, int targetSlot, AtomicLong count, AtomicLong bytes, SyncStream stream) {
        /**
         * Copies a value through the transfer, into the target's allocator where it has one (its read-only one for an
         * initializer), and counts the copy.
         *
         * @param t the value in the source memory
         * @return the copy in the target memory
         */
        Tensor apply(Tensor t) {
            TensorAllocator a = kind == ValueCopy.Kind.INITIALIZER && target.readOnly() != null ? target.readOnly()
                    : target.allocator();
            Tensor c;
            try {
                c = transfer.copy(t, source.device(), target.device(), a, stream);
            } catch (OrtexException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "copying " + Names.quote(value) + " from "
                        + source.name() + " to " + target.name() + " failed: " + e, e);
            }
            if (c == null) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "the data transfer copied "
                        + Names.quote(value) + " from " + source.name() + " to " + target.name() + " into nothing");
            }
            count.incrementAndGet();
            bytes.addAndGet(t.byteSize());
            return c;
        }

        /** What {@link io.ortex.api.Session#valueCopies()} reports of this copy. */
        ValueCopy report() {
            String to = kind == ValueCopy.Kind.INITIALIZER && target.readOnly() != null
                    ? target.readOnly().memoryInfo().name() : target.name();
            return new ValueCopy(value, source.name(), to, kind, count.get(), bytes.get());
        }
    }

    /** Finds the data transfer between two memory devices, and what the session knows of each memory. */
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

        /**
         * Describes a memory device of the session. Default: named after the device, no allocators.
         *
         * @param device the device
         * @return its name and allocators
         */
        default Memory memory(MemoryDevice device) {
            return device.equals(MemoryDevice.CPU) ? Memory.CPU : new Memory(device.toString(), device, null, null);
        }

        /**
         * Gets the session's stream of a memory device. Default: none.
         *
         * @param device the device
         * @return its stream, or {@code null}
         */
        default SyncStream stream(MemoryDevice device) {
            return null;
        }
    }

    /**
     * What one execution needs besides the values: the kernels' context, the run's memory, and the profiler.
     *
     * @param context the kernels' context
     * @param arena the run's memory
     * @param profiler records one event per step, or {@code null}
     * @param streams the run's use of the session's streams, or {@code null} for a session without streams
     */
    record Run(KernelContext context, RunArena arena, SessionProfiler profiler, RunStreams streams) {
        /**
         * A run without streams.
         *
         * @param context the kernels' context
         * @param arena the run's memory
         * @param profiler records one event per step, or {@code null}
         */
        Run(KernelContext context, RunArena arena, SessionProfiler profiler) {
            this(context, arena, profiler, null);
        }
    }

    private final List<Step> steps;
    private final Map<String, Integer> slots;
    private final Map<String, Copy> outputCopies;
    private final List<Copy> initializerCopies;
    private final List<Copy> copies;
    private final boolean[] owned;
    private final Set<String> readDirectly;
    private final StreamOrder streamOrder;

    private ExecutionPlan(List<Step> steps, Map<String, Integer> slots, Map<String, Copy> outputCopies,
                          List<Copy> initializerCopies, List<Copy> copies, boolean[] owned, Set<String> readDirectly) {
        this.readDirectly = readDirectly;
        this.streamOrder = StreamOrder.of(steps, outputCopies.values(), slots.size());
        this.steps = steps;
        this.slots = slots;
        this.outputCopies = outputCopies;
        this.initializerCopies = initializerCopies;
        this.copies = copies;
        this.owned = owned;
    }

    /**
     * Orders the compiled groups, gives every value a slot, and computes value lifetimes; no value is a constant.
     *
     * @param fused the fused nodes with their EP names and kernels, in any order
     * @param keep values never freed during a run (graph outputs, constants)
     * @param graphOutputs the graph's outputs, which callers receive in host memory
     * @param transfers finds the copies between memory devices
     * @return the plan
     */
    static ExecutionPlan build(List<Compiled> fused, Set<String> keep, List<String> graphOutputs,
                               Transfers transfers) {
        return build(fused, keep, Set.of(), graphOutputs, transfers);
    }

    /**
     * Orders the compiled groups, places every value in the memory of the EP that produces it (host memory for graph
     * inputs and constants), plans one copy per value and other memory it is read in (made before its first reader
     * there; a constant's once at session creation, see {@link #initializerCopies()}), gives every value and copy a
     * slot, and computes their lifetimes.
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
        // makes; per copy name, the copy's parts
        List<String[]> reads = new ArrayList<>(ordered.size());
        List<Object[][]> planned = new ArrayList<>(ordered.size());
        Map<String, Object[]> copyByName = new LinkedHashMap<>();
        List<String> initializerCopyNames = new ArrayList<>();
        // per alias output, the value whose buffer it is (a value that is no alias itself)
        Map<String, String> origins = new HashMap<>();
        for (Compiled c : ordered) {
            List<String> in = c.node().inputNames();
            String[] r = new String[in.size()];
            Object[][] made = new Object[in.size()][];
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
                Object[] parts = {name, transfers.find(from, to), transfers.memory(from), target,
                    constant ? ValueCopy.Kind.INITIALIZER : ValueCopy.Kind.RUN,
                    copyStream(transfers, from, to)};
                copyByName.put(copyName, parts);
                slots.putIfAbsent(copyName, slots.size());
                if (constant) {
                    keepAll.add(copyName);
                    initializerCopyNames.add(copyName);
                } else {
                    made[k] = parts;
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
            for (Object[] made : planned.get(i)) {
                if (made != null) {
                    lastUse.put((String) made[0], i);
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
                Object[] made = planned.get(i)[k];
                if (made != null) {
                    stepCopies[k] = copy(made, slots, reads.get(i)[k]);
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
            Copy copy = copy(copyByName.get(name), slots, name);
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
        for (Object[] parts : copyByName.values()) {
            if (parts[4] != ValueCopy.Kind.INITIALIZER) {
                direct.add((String) parts[0]);
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

    private static Copy copy(Object[] parts, Map<String, Integer> slots, String copyName) {
        String value = (String) parts[0];
        return new Copy(value, (DataTransfer) parts[1], (Memory) parts[2], (Memory) parts[3],
                (ValueCopy.Kind) parts[4], slots.get(value), slots.get(copyName), new AtomicLong(), new AtomicLong(),
                (SyncStream) parts[5]);
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
        return toHost(name, value, null);
    }

    /**
     * Brings a graph output into host memory as {@link #toHost(String, Tensor)} does, its copy queued on its stream
     * where it has one; the caller must then {@link #awaitOutputs wait for} the outputs before reading them.
     *
     * @param name the output's name
     * @param value the value as produced
     * @param streams the run's streams, or {@code null}
     * @return the value in host memory, possibly not yet filled
     */
    Tensor toHost(String name, Tensor value, RunStreams streams) {
        Copy copy = outputCopies.get(name);
        if (copy == null || value == null) {
            return value;
        }
        if (streams != null && copy.stream() != null) {
            streams.use(copy.stream());
        }
        return copy.apply(value);
    }

    /**
     * Blocks until the graph outputs copied to host memory in this run are filled: a notification on each stream
     * their copies were queued on, waited for on the host ({@code OrtSyncNotificationImpl::WaitOnHost}).
     *
     * @param streams the run's streams, or {@code null}
     */
    void awaitOutputs(RunStreams streams) {
        if (streams == null) {
            return;
        }
        for (SyncStream s : streamOrder.outputStreams()) {
            try {
                streams.notifyAfter(s).waitOnHost();
            } catch (OrtexException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "waiting for the graph outputs copied to host "
                        + "memory on stream " + s + " failed: " + e, e);
            }
        }
    }

    /**
     * Gets the copies of constants into the memories of the EPs that read them, which the session makes once when
     * it is created and places in their slots ({@link Copy#targetSlot()}).
     *
     * @return the copies, in plan order
     */
    List<Copy> initializerCopies() {
        return initializerCopies;
    }

    /**
     * Gets every copy the plan makes: initializers', then the runs' in step order, then the graph outputs'.
     *
     * @return the copies
     */
    List<Copy> copies() {
        return copies;
    }

    /**
     * Tells whether a value is read only through its copies made at session creation, so that its host form need
     * not stay in the value table.
     *
     * @param name the value's name
     * @return true when no step reads it where it is and it is no graph output
     */
    boolean isCopiedOnly(String name) {
        return !readDirectly.contains(name);
    }

    /**
     * Gets the name of a slot's value (a copy's is {@code value@memory}).
     *
     * @param slot the slot
     * @return the name
     */
    String slotName(int slot) {
        for (Map.Entry<String, Integer> e : slots.entrySet()) {
            if (e.getValue() == slot) {
                return e.getKey();
            }
        }
        throw new IllegalArgumentException("no slot " + slot);
    }

    /**
     * Tells whether a slot holds a value the run made in an EP's own memory, which the run closes when it frees the
     * slot (or at its end); the caller's inputs, the constants and host values are never closed.
     *
     * @param slot the slot
     * @return true for a value the run owns outside host memory
     */
    boolean owns(int slot) {
        return owned[slot];
    }

    /**
     * Tells whether any step or copy of the plan runs on a stream.
     *
     * @return true when the run's values may be filled later, in their streams' order
     */
    boolean usesStreams() {
        return !streamOrder.isEmpty();
    }

    /**
     * Runs every step.
     *
     * @param values the value table: graph inputs and constants in their slots; filled with every value computed,
     *     and emptied of each value after its last reader
     * @param run the kernels' context, the run's memory and the profiler
     * @param pinned by slot, the caller's tensor that a graph output is to be written into, or {@code null} when
     *     the caller pinned none: offered to the run's arena while the step that computes it runs
     */
    void execute(Tensor[] values, Run run, Tensor[] pinned) {
        RunArena arena = run.arena();
        SessionProfiler profiler = run.profiler();
        RunMemory.Budget budget = RunMemory.current();
        RunStreams streams = streamOrder.isEmpty() ? null : run.streams();
        SyncNotification[] notes = streams == null ? null : new SyncNotification[owned.length];
        for (Step s : steps) {
            int[] inSlots = s.inputSlots();
            Tensor[] in = new Tensor[inSlots.length];
            for (int i = 0; i < in.length; i++) {
                Copy copy = s.copies()[i];
                if (copy != null && values[copy.sourceSlot()] != null) {
                    if (streams != null) {
                        await(copy.sourceSlot(), StreamOrder.reader(copy), notes, s);
                    }
                    values[copy.targetSlot()] = copy.apply(values[copy.sourceSlot()]);
                    if (streams != null) {
                        streamOrder.produced(copy.targetSlot(), copy.stream(), notes, streams);
                    }
                }
                in[i] = inSlots[i] < 0 ? null : values[inSlots[i]];
                if (streams != null && inSlots[i] >= 0) {
                    await(inSlots[i], s.inputStreams()[i], notes, s);
                }
            }
            long start = profiler == null ? 0 : System.nanoTime();
            arena.beginStep();
            boolean offered = pinned != null && offerPinned(s, pinned, arena);
            Tensor[] out;
            try {
                KernelContext context = s.stream() == null || streams == null ? run.context()
                        : new StreamKernelContext(run.context(), arena, s.stream());
                if (context != run.context()) {
                    streams.use(s.stream());
                }
                out = compute(s, context, in);
                if (out == null || out.length != s.outputs().length) {
                    throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "partition " + Names.quote(s.name())
                            + " of EP " + s.ep() + " returned " + (out == null ? "nothing" : out.length + " outputs")
                            + ", expected " + s.outputs().length);
                }
                int[] outSlots = s.outputSlots();
                for (int i = 0; i < out.length; i++) {
                    if (out[i] != null) {
                        values[outSlots[i]] = out[i];
                        if (streams != null) {
                            streamOrder.produced(outSlots[i], s.stream(), notes, streams);
                        }
                        arena.hold(out[i]);
                        if (budget != null) {
                            budget.hold(RunMemory.bytes(out[i]));
                        }
                    }
                }
                for (int f : s.freeSlots()) {
                    if (budget != null && values[f] != null) {
                        budget.release(RunMemory.bytes(values[f]));
                    }
                    arena.drop(values[f]);
                    // an alias and its input are one block with one release (Tensor.reshape), given back once
                    if (owned[f] && values[f] != null) {
                        if (streams != null) {
                            streams.closeAtEnd(values[f]);
                        } else {
                            values[f].close();
                        }
                    }
                    values[f] = null;
                }
            } finally {
                if (offered) {
                    arena.withdrawOffers();
                }
                arena.endStep();
            }
            if (profiler != null) {
                profiler.step(s, start, System.nanoTime(), in, out);
            }
        }
    }

    /** Offers the arena the caller's tensors for the outputs a step computes; tells whether there were any. */
    private static boolean offerPinned(Step s, Tensor[] pinned, RunArena arena) {
        boolean any = false;
        for (int slot : s.outputSlots()) {
            if (slot >= 0 && pinned[slot] != null) {
                arena.offer(pinned[slot]);
                any = true;
            }
        }
        return any;
    }

    /**
     * Makes a reader wait for a value produced on another stream; a failure of the producer's work (which its stream
     * reports when waited for) fails the run, naming the value and the step that reads it.
     */
    private void await(int slot, SyncStream consumer, SyncNotification[] notes, Step s) {
        try {
            streamOrder.await(slot, consumer, notes);
        } catch (OrtexException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "waiting for " + Names.quote(slotName(slot))
                    + " before partition " + Names.quote(s.name()) + " of EP " + s.ep() + " failed: " + e, e);
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
