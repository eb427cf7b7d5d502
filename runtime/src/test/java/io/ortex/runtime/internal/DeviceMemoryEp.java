package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.EpMemory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.TensorAllocator;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test EP factory whose EPs work in an emulated device memory outside the Java heap: it declares a device memory
 * and a read-only memory for initializers on one NPU ({@link EpMemory}), its allocators hand out direct buffers and
 * count them, its data transfer copies between host and device memory, and its kernels (Add, Mul, Relu on float
 * tensors, the smaller operand repeated along the larger) REFUSE any input that is not a live tensor of its own
 * allocators, so a copy the runtime fails to insert fails the run. Each claimed node is a partition of its own.
 */
final class DeviceMemoryEp extends DeviceTestEpFactory {
    static final String NAME = "DeviceMemEP";
    static final MemoryDevice NPU_MEMORY = new MemoryDevice(HardwareDeviceType.NPU, MemoryDevice.MemoryType.DEFAULT,
            0x1e2f, 0);
    static final MemoryInfo DEVICE = new MemoryInfo("TestNpu", NPU_MEMORY, MemoryInfo.Kind.DEVICE);
    static final MemoryInfo WEIGHTS = new MemoryInfo("TestNpuWeights", NPU_MEMORY, MemoryInfo.Kind.READ_ONLY);

    private final List<String> ops;
    final HostDeviceTransfer transfer = new HostDeviceTransfer(NPU_MEMORY, this::isLive);
    final AtomicInteger computes = new AtomicInteger();

    DeviceMemoryEp(String... ops) {
        super(NAME, 0x1e2f, HardwareDeviceType.NPU, -1);
        this.ops = List.of(ops);
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        return new Ep();
    }

    @Override
    public List<MemoryInfo> memoryInfos() {
        return List.of(DEVICE, WEIGHTS);
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return Optional.of(transfer);
    }

    /** Claims every node of its op types, each alone. */
    private final class Ep implements ExecutionProvider {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public MemoryDevice memoryDevice() {
            return NPU_MEMORY;
        }

        @Override
        public void getCapability(GraphView graph, GraphSupport support) {
            for (NodeView n : graph.nodes()) {
                if (ops.contains(n.opType())) {
                    support.addSingleNode(n);
                }
            }
        }

        @Override
        public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
            List<ComputeKernel> kernels = new ArrayList<>();
            for (GraphView g : graphs) {
                String op = g.nodes().get(0).opType();
                kernels.add(new Kernel(op));
            }
            return kernels;
        }
    }

    /** Reads its inputs in device memory, writes its output there. */
    private final class Kernel implements ComputeKernel {
        private final String op;

        Kernel(String op) {
            this.op = op;
        }

        @Override
        public Tensor[] compute(KernelContext context, Tensor[] inputs) {
            computes.incrementAndGet();
            float[][] in = new float[inputs.length][];
            for (int i = 0; i < inputs.length; i++) {
                Tensor t = inputs[i];
                if (t == null || !t.isOffHeap() || !isLive(t)) {
                    throw new IllegalStateException(op + " input " + i + " is not in device memory: " + t);
                }
                float[] f = new float[t.size()];
                t.buffer().asFloatBuffer().get(f);
                in[i] = f;
            }
            Tensor big = inputs[0].size() >= inputs[inputs.length - 1].size() ? inputs[0] : inputs[1];
            TensorAllocator a = context.allocator(NPU_MEMORY).orElseThrow(() ->
                    new IllegalStateException("no allocator of device memory in the kernel's context"));
            Tensor out = a.allocate(ElementType.FLOAT, big.shape());
            FloatBuffer o = out.buffer().asFloatBuffer();
            for (int i = 0; i < out.size(); i++) {
                float x = in[0][i % in[0].length];
                float r = switch (op) {
                    case "Add" -> x + in[1][i % in[1].length];
                    case "Mul" -> x * in[1][i % in[1].length];
                    default -> Math.max(0f, x);
                };
                o.put(i, r);
            }
            return new Tensor[] {out};
        }
    }
}
