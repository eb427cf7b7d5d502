package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelComputeContext;
import io.ortex.api.spi.KernelDef;
import io.ortex.api.spi.KernelImpl;
import io.ortex.api.spi.KernelInfo;
import io.ortex.api.spi.KernelMemoryType;
import io.ortex.api.spi.KernelRegistry;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.PrePackedWeight;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test EP that runs nodes through a kernel registry instead of compiling partitions: {@code Add} in two opset
 * ranges (7-12 and 13+, float only), {@code Relu} (float), both allowed to write their output into their first input;
 * {@code MatMul} (2-D float) that pre-packs its constant weight transposed; {@code Reshape}, its output declared an
 * alias of its data (the data reshaped); and the runtime's {@code If}, {@code Loop}
 * and {@code Scan}. It claims, one node each, the nodes its registry has a kernel for among the ops it was told to
 * take, plus the ops it is told to claim whatever the registry says. What its kernels did is counted in
 * {@link Stats}.
 */
final class KernelTestEp implements ExecutionProvider {
    static final String NAME = "KernelEP";

    /** What the EP's kernels did, shared by the EPs of one factory. */
    static final class Stats {
        final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        final AtomicInteger packs = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();
        final AtomicInteger packedRuns = new AtomicInteger();
        final AtomicInteger inplace = new AtomicInteger();

        int calls(String kernel) {
            AtomicInteger n = calls.get(kernel);
            return n == null ? 0 : n.get();
        }

        void call(String kernel) {
            calls.computeIfAbsent(kernel, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    private final Stats stats;
    private final Set<String> ops;
    private final Set<String> forced;
    private final KernelRegistry registry = new KernelRegistry();

    /**
     * Creates the EP.
     *
     * @param stats where its kernels count what they did
     * @param ops the ops it takes where its registry has a kernel
     * @param forced the ops it claims even without a kernel (to see the session fail)
     */
    KernelTestEp(Stats stats, Set<String> ops, Set<String> forced) {
        this.stats = stats;
        this.ops = ops;
        this.forced = forced;
        Set<ElementType> floats = Set.of(ElementType.FLOAT);
        registry.add(KernelDef.builder("Add").versions(7, 12).typeConstraint("T", floats, 0, 1).mayInplace(0, 0)
                .build(), info -> new AddKernel("Add@7-12"));
        registry.add(KernelDef.builder("Add").since(13).typeConstraint("T", floats, 0, 1).mayInplace(0, 0).build(),
                info -> new AddKernel("Add@13+"));
        registry.add(KernelDef.builder("Relu").since(6).typeConstraint("T", floats, 0).mayInplace(0, 0).build(),
                info -> new ReluKernel());
        registry.add(KernelDef.builder("MatMul").since(13).typeConstraint("T", floats, 0, 1).build(),
                info -> new MatMulKernel());
        registry.add(KernelDef.builder("Reshape").since(5).alias(0, 0).build(),
                info -> (context, inputs) -> new Tensor[] {inputs[0].reshape(inputs[1].longs().clone())});
        registry.add(KernelDef.builder("If").since(1).inputMemory(0, KernelMemoryType.CPU_INPUT).build(),
                KernelInfo::controlFlowKernel);
        registry.add(KernelDef.builder("Loop").since(1).inputMemory(0, KernelMemoryType.CPU_INPUT)
                .inputMemory(1, KernelMemoryType.CPU_INPUT).build(), KernelInfo::controlFlowKernel);
        registry.add(KernelDef.builder("Scan").since(9).build(), KernelInfo::controlFlowKernel);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<KernelRegistry> kernelRegistry() {
        return Optional.of(registry);
    }

    @Override
    public void getCapability(GraphView graph, GraphSupport support) {
        for (NodeView n : graph.nodes()) {
            if (forced.contains(n.opType()) || ops.contains(n.opType()) && support.lookUpKernel(n).isPresent()) {
                support.addSingleNode(n);
            }
        }
    }

    @Override
    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
        throw new UnsupportedOperationException("KernelEP claims single nodes only, never groups to compile");
    }

    /** {@code a + b} with {@code b} repeated over {@code a} (same shape, or the trailing dimensions). */
    private final class AddKernel implements KernelImpl {
        private final String label;

        AddKernel(String label) {
            this.label = label;
        }

        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            stats.call(label);
            float[] a = inputs[0].floats();
            float[] b = inputs[1].floats();
            Tensor out = context.output(0, ElementType.FLOAT, inputs[0].shape());
            if (out.data() == inputs[0].data()) {
                stats.inplace.incrementAndGet();
            }
            float[] o = out.floats();
            for (int i = 0; i < o.length; i++) {
                o[i] = a[i] + b[i % b.length];
            }
            return new Tensor[] {out};
        }
    }

    /** {@code max(0, x)}. */
    private final class ReluKernel implements KernelImpl {
        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            stats.call("Relu");
            float[] x = inputs[0].floats();
            Tensor out = context.output(0, ElementType.FLOAT, inputs[0].shape());
            if (out.data() == inputs[0].data()) {
                stats.inplace.incrementAndGet();
            }
            float[] o = out.floats();
            for (int i = 0; i < o.length; i++) {
                o[i] = Math.max(0f, x[i]);
            }
            return new Tensor[] {out};
        }
    }

    /** A 2-D MatMul whose constant weight {@code [K, N]} is pre-packed as its transpose {@code [N, K]}. */
    private final class MatMulKernel implements KernelImpl {
        private volatile float[] packed;

        @Override
        public Optional<PrePackedWeight> prePackWeight(int inputIndex, Tensor weight) {
            if (inputIndex != 1 || weight.rank() != 2) {
                return Optional.empty();
            }
            stats.packs.incrementAndGet();
            return Optional.of(PrePackedWeight.of(transpose(weight.floats(), (int) weight.dim(0),
                    (int) weight.dim(1)), weight.size() * 4L, stats.releases::incrementAndGet));
        }

        @Override
        public void setPrePackedWeight(int inputIndex, PrePackedWeight weight) {
            packed = (float[]) weight.buffer();
        }

        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            stats.call("MatMul");
            int m = (int) inputs[0].dim(0);
            int k = (int) inputs[0].dim(1);
            int n = (int) inputs[1].dim(1);
            float[] bt = packed;
            if (bt != null) {
                stats.packedRuns.incrementAndGet();
            } else {
                bt = transpose(inputs[1].floats(), k, n);
            }
            float[] a = inputs[0].floats();
            float[] bt2 = bt;
            Tensor out = context.output(0, ElementType.FLOAT, m, n);
            float[] o = out.floats();
            context.parallelFor(m, 1, (from, to) -> {
                for (int r = from; r < to; r++) {
                    for (int c = 0; c < n; c++) {
                        float s = 0f;
                        for (int j = 0; j < k; j++) {
                            s += a[r * k + j] * bt2[c * k + j];
                        }
                        o[r * n + c] = s;
                    }
                }
            });
            return new Tensor[] {out};
        }
    }

    private static float[] transpose(float[] b, int rows, int cols) {
        float[] t = new float[b.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                t[c * rows + r] = b[r * cols + c];
            }
        }
        return t;
    }
}
