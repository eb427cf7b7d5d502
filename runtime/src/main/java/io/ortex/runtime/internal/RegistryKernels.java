package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.NotImplementedException;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.KernelComputeContext;
import io.ortex.api.spi.KernelDef;
import io.ortex.api.spi.KernelImpl;
import io.ortex.api.spi.KernelInfo;
import io.ortex.api.spi.KernelRegistry;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.PrePackedWeight;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Makes the {@link RegistryKernel} of a node an EP claimed alone: finds its kernel in the EP's registry (failing the
 * session naming the node when none fits), creates it, and has it pre-pack its constant inputs, each pack shared
 * through the environment's {@link PrePackStore} when the session sets {@code session.use_env_allocators=1}. The
 * control-flow kernels an EP registers for If, Loop and Scan come from the session's CPU EP, as ONNX Runtime's come
 * from its own CPU kernels.
 */
final class RegistryKernels {
    /** The ops whose kernel {@link KernelInfo#controlFlowKernel()} supplies. */
    static final Set<String> CONTROL_FLOW = Set.of("If", "Loop", "Scan");

    private final Map<String, String> config;
    private final PrePackStore shared;
    private final List<EpInstance> eps;

    /**
     * Makes the factory of one session.
     *
     * @param config the session configuration
     * @param shared the environment's pre-packed weights
     * @param eps the session's EPs
     */
    RegistryKernels(Map<String, String> config, PrePackStore shared, List<EpInstance> eps) {
        this.config = config;
        this.shared = shared;
        this.eps = eps;
    }

    /**
     * Creates the kernel of one node.
     *
     * @param ep the EP that claimed it
     * @param registry the EP's registry
     * @param graph the graph the node belongs to
     * @param view the node as a group of one
     * @param fused the step that stands for it in the plan
     * @return the kernel, pre-packed
     */
    RegistryKernel create(ExecutionProvider ep, KernelRegistry registry, Graph graph, GroupGraphView view,
                          FusedNode fused) {
        NodeView node = view.nodes().get(0);
        KernelRegistry.Entry entry = KernelMatcher.require(ep.name(), registry, node);
        KernelDef def = entry.definition();
        KernelImpl impl;
        try {
            impl = entry.create().create(new Info(node, def, ep, graph));
        } catch (OrtexException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "EP " + ep.name() + " failed to create the kernel " + def
                    + " of node " + Names.quote(node.displayName()) + ": " + e, e);
        }
        if (impl == null) {
            throw new OrtexException(ErrorCode.FAIL, "EP " + ep.name() + " created no kernel " + def + " for node "
                    + Names.quote(node.displayName()));
        }
        List<Runnable> releases = new ArrayList<>();
        try {
            prePack(ep, def, impl, node, releases);
        } catch (RuntimeException e) {
            releases.forEach(Runnable::run);
            impl.close();
            throw e instanceof OrtexException o ? o : new OrtexException(ErrorCode.FAIL, "EP " + ep.name()
                    + " failed to pre-pack a weight of node " + Names.quote(node.displayName()) + ": " + e, e);
        }
        List<ValueView> kernelInputs = new ArrayList<>(node.inputs());
        kernelInputs.addAll(node.implicitInputs());
        int[] fromFused = new int[kernelInputs.size()];
        for (int i = 0; i < fromFused.length; i++) {
            ValueView v = kernelInputs.get(i);
            fromFused[i] = v == null ? -1 : fused.inputNames().indexOf(v.name());
        }
        int[] toFused = new int[fused.outputNames().size()];
        for (int i = 0; i < toFused.length; i++) {
            String name = fused.outputNames().get(i);
            for (int o = 0; o < node.outputs().size(); o++) {
                ValueView v = node.outputs().get(o);
                if (v != null && v.name().equals(name)) {
                    toFused[i] = o;
                }
            }
        }
        return new RegistryKernel(node.displayName(), ep.name(), def, impl, fromFused, toFused,
                node.outputs().size(), releases, impl instanceof ControlFlow);
    }

    private void prePack(ExecutionProvider ep, KernelDef def, KernelImpl impl, NodeView node,
                         List<Runnable> releases) {
        if ("1".equals(config.getOrDefault(SessionOptions.DISABLE_PREPACKING,
                SessionOptions.DISABLE_PREPACKING_DEFAULT).trim())) {
            return;
        }
        boolean share = "1".equals(config.getOrDefault(SessionOptions.USE_ENV_ALLOCATORS,
                SessionOptions.USE_ENV_ALLOCATORS_DEFAULT).trim());
        for (int i = 0; i < node.inputs().size(); i++) {
            ValueView v = node.inputs().get(i);
            if (v == null || !v.isConstantInitializer()) {
                continue;
            }
            Tensor weight = v.initializer().orElse(null);
            if (weight == null) {
                continue;
            }
            int input = i;
            String key = share ? PrePackStore.key(ep.name() + '|' + def + '|' + input, weight) : null;
            Optional<PrePackedWeight> packed;
            if (key != null) {
                packed = shared.acquire(key, () -> impl.prePackWeight(input, weight));
                if (packed.isPresent()) {
                    releases.add(() -> shared.release(key));
                }
            } else {
                packed = impl.prePackWeight(input, weight);
                if (packed != null && packed.isPresent()) {
                    PrePackedWeight own = packed.get();
                    releases.add(own::release);
                }
            }
            if (packed != null && packed.isPresent()) {
                impl.setPrePackedWeight(input, packed.get());
            }
        }
    }

    /** What a create function learns of its node. */
    private final class Info implements KernelInfo {
        private final NodeView node;
        private final KernelDef def;
        private final ExecutionProvider ep;
        private final Graph graph;

        Info(NodeView node, KernelDef def, ExecutionProvider ep, Graph graph) {
            this.node = node;
            this.def = def;
            this.ep = ep;
            this.graph = graph;
        }

        @Override
        public NodeView node() {
            return node;
        }

        @Override
        public KernelDef definition() {
            return def;
        }

        @Override
        public ExecutionProvider ep() {
            return ep;
        }

        @Override
        public KernelImpl controlFlowKernel() {
            if (!node.domain().isEmpty() || !CONTROL_FLOW.contains(node.opType())) {
                throw new NotImplementedException("node " + Names.quote(node.displayName()) + " (op "
                        + Partitioner.opName(node) + ") is no control-flow node; the runtime supplies kernels for "
                        + "If, Loop and Scan only");
            }
            EpInstance cpu = eps.stream().filter(e -> e.ep().name().equals(RuntimeEnvironment.CPU_EP))
                    .findFirst().orElseThrow(() -> new NotImplementedException("node "
                            + Names.quote(node.displayName()) + " (" + node.opType() + "): the control-flow kernel "
                            + "comes from the CPU EP, which this session left out ("
                            + SessionOptions.DISABLE_CPU_EP_FALLBACK + ")"));
            List<String> inputs = new ArrayList<>();
            for (ValueView v : node.inputs()) {
                inputs.add(v == null ? "" : v.name());
            }
            for (ValueView v : node.implicitInputs()) {
                inputs.add(v.name());
            }
            List<String> outputs = new ArrayList<>();
            for (ValueView v : node.outputs()) {
                outputs.add(v == null ? "" : v.name());
            }
            String name = ep.name() + "_" + node.displayName() + "_" + node.opType();
            GroupGraphView view = new GroupGraphView(graph, name, List.of(node), FusionOptions.DEFAULT, null,
                    GroupGraphView.positions(graph));
            List<ComputeKernel> compiled = cpu.ep().compile(List.of(view),
                    List.of(new FusedNodeImpl(name, inputs, outputs)));
            if (compiled == null || compiled.size() != 1 || compiled.get(0) == null) {
                throw new OrtexException(ErrorCode.FAIL, "the CPU EP compiled no kernel for control-flow node "
                        + Names.quote(node.displayName()));
            }
            return new ControlFlow(compiled.get(0));
        }
    }

    /** The runtime's control-flow kernel: the CPU EP's kernel of the node, its subgraphs run through their plans. */
    private record ControlFlow(ComputeKernel kernel) implements KernelImpl {
        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            return kernel.compute(context, inputs);
        }

        @Override
        public void close() {
            kernel.close();
        }
    }
}
