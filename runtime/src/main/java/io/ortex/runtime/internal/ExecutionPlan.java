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
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.SyncNotification;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Built by {@link PlanBuilder}; immutable but for the copies' counters; one plan serves every run.
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

    /**
     * Creates a plan; {@link PlanBuilder} works out its parts.
     *
     * @param steps the steps in the order they run
     * @param slots every value's and copy's slot in a run's value table
     * @param outputCopies by graph output, its copy to host memory
     * @param initializerCopies the constants' copies, made once per session
     * @param copies every copy
     * @param owned by slot, whether a run gives the value back to its allocator when it frees it
     * @param readDirectly the values some step, copy or caller reads as they are
     */
    ExecutionPlan(List<Step> steps, Map<String, Integer> slots, Map<String, Copy> outputCopies,
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
        } catch (RuntimeException | StackOverflowError | InternalError e) {
            // an InternalError is how the JVM reports a read of a mapped page that its file no longer has
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "partition " + Names.quote(s.name()) + " of EP "
                    + s.ep() + " failed: " + e + (e instanceof InternalError ? "; a file the session maps (the model"
                    + " file or its external data) may have been cut short since the session was created: create the"
                    + " session anew" : ""), e);
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
