package io.ortex.ep.cpu;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.fusion.FastPath;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * The kernel of a group the CPU EP fused: the fusion's fast path, and, for inputs the fast path does not handle,
 * the group's nodes run one after the other with their own kernels, created when first needed. Thread safe: the
 * fallback keeps its values in a map of its own per call, and each node kernel is created once.
 */
final class FusedGroupKernel implements ComputeKernel {
    private final String fusion;
    private final FastPath fast;
    private final List<NodeView> nodes;
    private final Function<NodeView, CpuKernel> kernelFactory;
    private final AtomicReferenceArray<CpuKernel> kernels;
    private final List<String> inputNames;
    private final List<String> outputNames;

    /**
     * Creates the kernel.
     *
     * @param fusion the fusion's name, for messages
     * @param fast the fast path
     * @param nodes the group's nodes in order
     * @param kernelFactory creates a node's own kernel, for the fallback
     * @param inputNames the fused node's inputs
     * @param outputNames the fused node's outputs
     */
    FusedGroupKernel(String fusion, FastPath fast, List<NodeView> nodes, Function<NodeView, CpuKernel> kernelFactory,
                     List<String> inputNames, List<String> outputNames) {
        this.fusion = fusion;
        this.fast = fast;
        this.nodes = List.copyOf(nodes);
        this.kernelFactory = kernelFactory;
        this.kernels = new AtomicReferenceArray<>(nodes.size());
        this.inputNames = List.copyOf(inputNames);
        this.outputNames = List.copyOf(outputNames);
    }

    @Override
    public Tensor[] compute(KernelContext context, Tensor[] inputs) {
        Tensor[] out;
        try {
            out = fast.compute(inputs, context);
        } catch (OrtexException e) {
            throw new OrtexException(e.code(), "fused " + fusion + " of " + describe() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, "fused " + fusion + " of " + describe()
                    + " failed: " + e, e);
        }
        return out != null ? out : sequentially(context, inputs);
    }

    /** Runs the group's nodes in order, each with its own kernel. */
    private Tensor[] sequentially(KernelContext context, Tensor[] inputs) {
        Map<String, Tensor> values = new HashMap<>();
        for (int i = 0; i < inputs.length; i++) {
            values.put(inputNames.get(i), inputs[i]);
        }
        for (int step = 0; step < nodes.size(); step++) {
            NodeView node = nodes.get(step);
            int count = node.inputs().size() + node.implicitInputs().size();
            Tensor[] in = new Tensor[count];
            int k = 0;
            for (ValueView v : node.inputs()) {
                in[k++] = v == null ? null : value(values, v);
            }
            for (ValueView v : node.implicitInputs()) {
                in[k++] = values.get(v.name());
            }
            Tensor[] out;
            try {
                out = kernel(step).run(in, context);
            } catch (OrtexException e) {
                throw new OrtexException(e.code(), CpuExecutionProvider.describe(node) + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                throw new OrtexException(ErrorCode.RUNTIME_EXCEPTION, CpuExecutionProvider.describe(node)
                        + " failed: " + e, e);
            }
            for (int o = 0; o < node.outputs().size() && o < out.length; o++) {
                ValueView v = node.outputs().get(o);
                if (v != null && out[o] != null) {
                    values.put(v.name(), out[o]);
                }
            }
        }
        Tensor[] result = new Tensor[outputNames.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = values.get(outputNames.get(i));
        }
        return result;
    }

    /** The node kernel of a step, created on first use (two threads may both create it; one is kept). */
    private CpuKernel kernel(int step) {
        CpuKernel k = kernels.get(step);
        if (k == null) {
            kernels.compareAndSet(step, null, kernelFactory.apply(nodes.get(step)));
            k = kernels.get(step);
        }
        return k;
    }

    /** A value of the group, or a constant initializer the runtime did not feed (the fusion dropped it). */
    private static Tensor value(Map<String, Tensor> values, ValueView v) {
        Tensor t = values.get(v.name());
        if (t == null && v.isConstantInitializer()) {
            t = v.initializer().orElse(null);
        }
        return t;
    }

    private String describe() {
        StringBuilder b = new StringBuilder("nodes ");
        for (int i = 0; i < nodes.size(); i++) {
            b.append(i == 0 ? "'" : ", '").append(nodes.get(i).displayName()).append('\'');
        }
        return b.toString();
    }
}
