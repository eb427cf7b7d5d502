package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.KernelComputeContext;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.KernelDef;
import io.ortex.api.spi.KernelImpl;
import io.ortex.api.spi.KernelMemoryType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One node that an EP claimed alone and runs through its registered kernel: a step of the session's plan like a
 * compiled partition, which hands the kernel its inputs in the node's order and takes back the outputs the plan reads.
 * It checks at run time the input types the model did not declare, and gives an output the buffer of an input the
 * definition lets it reuse when {@link InplacePlanner} found that input read by nobody after the node and the run's
 * arena finds its array held by that one value. The plan places its inputs and outputs as the definition says
 * ({@link #inputPlacement}, {@link #outputPlacement}, {@link #aliasInput}); after each call it checks that an output
 * declared an alias of an input is a view of that input and that an output declared {@code CPU_OUTPUT} is in host
 * memory. The runtime's control-flow kernels work in host memory: every input and output of theirs is placed there.
 * Closing it closes the kernel and gives back its pre-packed weights.
 */
final class RegistryKernel implements ComputeKernel {
    private final String node;
    private final String ep;
    private final KernelDef definition;
    private final KernelImpl impl;
    /** Per kernel input (node inputs, then implicit inputs): its position among the fused node's inputs, or -1. */
    private final int[] fromFused;
    /** Per fused node output: its position among the node's outputs. */
    private final int[] toFused;
    private final int kernelOutputs;
    /** Per node output: whether the plan lets it reuse the input its definition names; set once, before any run. */
    private final boolean[] inplace;
    private final List<Runnable> releases;
    /** Whether every input and output is in host memory (the runtime's control-flow kernels). */
    private final boolean onHost;

    RegistryKernel(String node, String ep, KernelDef definition, KernelImpl impl, int[] fromFused, int[] toFused,
                   int kernelOutputs, List<Runnable> releases, boolean onHost) {
        this.onHost = onHost;
        this.node = node;
        this.ep = ep;
        this.definition = definition;
        this.impl = impl;
        this.fromFused = fromFused;
        this.toFused = toFused;
        this.kernelOutputs = kernelOutputs;
        this.inplace = new boolean[kernelOutputs];
        this.releases = new ArrayList<>(releases);
    }

    KernelDef definition() {
        return definition;
    }

    /**
     * Gets the fused-node input position of one kernel input.
     *
     * @param kernelInput the input's position among the node's inputs
     * @return its position among the step's inputs, or -1 when omitted
     */
    int fusedInput(int kernelInput) {
        return kernelInput < fromFused.length ? fromFused[kernelInput] : -1;
    }

    /**
     * Gets where the kernel wants one of the step's inputs, as its definition says ({@code CPU_INPUT} for every input
     * of the runtime's control-flow kernels, which read them on the host and hand them to their bodies there); the
     * plan copies the value there when it lives elsewhere.
     *
     * @param fused the step input's position
     * @return the placement of the first kernel input it feeds, {@link KernelMemoryType#DEFAULT} when none
     */
    KernelMemoryType inputPlacement(int fused) {
        if (onHost) {
            return KernelMemoryType.CPU_INPUT;
        }
        for (int k = 0; k < fromFused.length; k++) {
            if (fromFused[k] == fused) {
                return definition.inputMemory(k);
            }
        }
        return KernelMemoryType.DEFAULT;
    }

    /**
     * Gets where the kernel puts one of the step's outputs, as its definition says.
     *
     * @param fused the step output's position
     * @return the placement
     */
    KernelMemoryType outputPlacement(int fused) {
        return onHost ? KernelMemoryType.CPU_OUTPUT : definition.outputMemory(toFused[fused]);
    }

    /**
     * Gets the step input that one of the step's outputs is an alias of, as the definition declares.
     *
     * @param fused the step output's position
     * @return the step input's position, or -1 when the output is no alias (or its input is omitted)
     */
    int aliasInput(int fused) {
        Integer input = definition.aliases().get(toFused[fused]);
        return input == null ? -1 : fusedInput(input);
    }

    /**
     * Counts the kernel inputs fed by one step input (a node that reads a value twice, as {@code Add(x, x)}).
     *
     * @param fused the step input's position
     * @return how many kernel inputs read it
     */
    int readers(int fused) {
        int n = 0;
        for (int f : fromFused) {
            if (f == fused) {
                n++;
            }
        }
        return n;
    }

    /**
     * Lets a node output reuse the input its definition pairs it with; called by {@link InplacePlanner} only.
     *
     * @param output the output's position among the node's outputs
     */
    void allowInplace(int output) {
        inplace[output] = true;
    }

    /**
     * Tells whether the plan lets an output reuse its input, for tests.
     *
     * @param output the output's position
     * @return true when allowed
     */
    boolean inplaceAllowed(int output) {
        return inplace[output];
    }

    @Override
    public Tensor[] compute(KernelContext context, Tensor[] inputs) {
        Tensor[] in = new Tensor[fromFused.length];
        for (int i = 0; i < in.length; i++) {
            in[i] = fromFused[i] < 0 ? null : inputs[fromFused[i]];
        }
        checkTypes(in);
        Tensor[] out = impl.compute(new Io(context, in), in);
        if (out == null || out.length < kernelOutputs) {
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "the kernel " + definition + " of EP " + ep
                    + " for node " + Names.quote(node) + " returned " + (out == null ? "nothing" : out.length
                    + " outputs") + ", expected " + kernelOutputs);
        }
        checkOutputs(in, out);
        Tensor[] picked = new Tensor[toFused.length];
        for (int i = 0; i < picked.length; i++) {
            picked[i] = out[toFused[i]];
        }
        return picked;
    }

    /**
     * Refuses an alias that is no view of its input, and a {@code CPU_OUTPUT} outside host memory; the refused call's
     * outputs in device memory (but views of its inputs) are given back first.
     */
    private void checkOutputs(Tensor[] in, Tensor[] out) {
        try {
            checkPlacement(in, out);
        } catch (OrtexException e) {
            for (Tensor t : out) {
                if (t != null && t.isOffHeap() && Arrays.stream(in).noneMatch(t::isViewOf)) {
                    t.close();
                }
            }
            throw e;
        }
    }

    private void checkPlacement(Tensor[] in, Tensor[] out) {
        for (Map.Entry<Integer, Integer> a : definition.aliases().entrySet()) {
            int o = a.getKey();
            int i = a.getValue();
            if (o < out.length && i < in.length && out[o] != null && in[i] != null && !out[o].isViewOf(in[i])) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "the kernel " + definition + " of EP " + ep
                        + " for node " + Names.quote(node) + " declares output " + o + " an alias of input " + i
                        + " but returned another buffer; return the input or a view of it (Tensor.reshape)");
            }
        }
        for (int o = 0; o < kernelOutputs; o++) {
            if (out[o] != null && out[o].isOffHeap()
                    && (onHost || definition.outputMemory(o) == KernelMemoryType.CPU_OUTPUT)) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "the kernel " + definition + " of EP " + ep
                        + " for node " + Names.quote(node) + " returned output " + o + " outside host memory, but "
                        + "declares it CPU_OUTPUT; allocate it with KernelContext.allocate");
            }
        }
    }

    private void checkTypes(Tensor[] in) {
        for (KernelDef.TypeConstraint c : definition.typeConstraints()) {
            for (int i : c.inputs()) {
                if (i < in.length && in[i] != null && !c.types().contains(in[i].type())) {
                    throw new OrtexException(ErrorCode.INVALID_ARGUMENT, "node " + Names.quote(node) + " of EP " + ep
                            + ": input " + i + " is " + in[i].type() + ", its kernel " + definition + " takes "
                            + c.name() + " in " + c.types());
                }
            }
        }
    }

    @Override
    public void close() {
        try {
            impl.close();
        } finally {
            for (Runnable r : releases) {
                r.run();
            }
            releases.clear();
        }
    }

    @Override
    public String toString() {
        return "RegistryKernel[" + node + ", " + definition + "]";
    }

    /** The kernel's view of one call: the run's context, plus outputs that may reuse an input's buffer. */
    private final class Io extends ForwardingKernelContext implements KernelComputeContext {
        private final Tensor[] in;
        private boolean[] donated;

        Io(KernelContext run, Tensor[] in) {
            super(run);
            this.in = in;
        }

        @Override
        public Tensor output(int index, ElementType type, long... shape) {
            Integer source = index < inplace.length && inplace[index] ? definition.inplace().get(index) : null;
            if (source != null && source < in.length && delegate instanceof ArenaContext a) {
                Tensor donor = in[source];
                if (donor != null && donor.type() == type && type != ElementType.STRING
                        && donor.size() == Tensor.checkedElementCount(shape)
                        && (donated == null || !donated[source]) && a.arena().soleHolder(donor)
                        && !a.arena().offers(type, shape)) {
                    if (donated == null) {
                        donated = new boolean[in.length];
                    }
                    donated[source] = true;
                    return Tensor.of(type, shape.clone(), donor.data());
                }
            }
            return delegate.allocateUninitialized(type, shape);
        }

        @Override
        public String toString() {
            return "KernelComputeContext[" + node + ", inputs " + Arrays.toString(in) + "]";
        }
    }
}
