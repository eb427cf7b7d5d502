package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.EpFactory;
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
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test EP factory whose EPs work in an emulated device memory outside the Java heap: it declares a device memory
 * and a read-only memory for initializers on one NPU ({@link EpMemory}), its allocators hand out direct buffers and
 * count them, its data transfer copies between host and device memory, and its kernels (Add, Mul, Relu on float
 * tensors, the smaller operand repeated along the larger) REFUSE any input that is not a live tensor of its own
 * allocators, so a copy the runtime fails to insert fails the run. Each claimed node is a partition of its own.
 */
final class DeviceMemoryEp implements EpFactory, EpMemory {
    static final String NAME = "DeviceMemEP";
    static final MemoryDevice NPU_MEMORY = new MemoryDevice(HardwareDeviceType.NPU, MemoryDevice.MemoryType.DEFAULT,
            0x1e2f, 0);
    static final MemoryInfo DEVICE = new MemoryInfo("TestNpu", NPU_MEMORY, MemoryInfo.Kind.DEVICE);
    static final MemoryInfo WEIGHTS = new MemoryInfo("TestNpuWeights", NPU_MEMORY, MemoryInfo.Kind.READ_ONLY);

    private final List<String> ops;
    final List<CountingAllocator> allocators = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger allocatorsReleased = new AtomicInteger();
    final AtomicInteger toDevice = new AtomicInteger();
    final AtomicInteger toHost = new AtomicInteger();
    final AtomicInteger computes = new AtomicInteger();

    DeviceMemoryEp(String... ops) {
        this.ops = List.of(ops);
    }

    /** Counts buffers: how many were handed out, how many are live, and which tensors are live. */
    static final class CountingAllocator implements TensorAllocator {
        private final MemoryInfo info;
        final AtomicInteger allocated = new AtomicInteger();
        final AtomicInteger freed = new AtomicInteger();
        final Set<Tensor> live = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        volatile boolean released;

        CountingAllocator(MemoryInfo info) {
            this.info = info;
        }

        @Override
        public MemoryInfo memoryInfo() {
            return info;
        }

        @Override
        public Tensor allocate(ElementType type, long... shape) {
            if (released) {
                throw new IllegalStateException(info.name() + ": allocator used after release");
            }
            int bytes = Tensor.checkedElementCount(shape) * Tensor.storageBytes(type);
            ByteBuffer block = ByteBuffer.allocateDirect(Math.max(bytes, 1));
            Tensor[] self = new Tensor[1];
            self[0] = Tensor.ofBuffer(type, shape, block, () -> {
                if (!live.remove(self[0])) {
                    throw new IllegalStateException(info.name() + ": a buffer freed that is not live");
                }
                freed.incrementAndGet();
            });
            live.add(self[0]);
            allocated.incrementAndGet();
            return self[0];
        }

        int live() {
            return live.size();
        }

        boolean owns(Tensor t) {
            return live.contains(t);
        }
    }

    /** The allocator of a memory, created once by the environment. */
    CountingAllocator allocator(MemoryInfo memory) {
        synchronized (allocators) {
            return allocators.stream().filter(a -> a.memoryInfo().equals(memory)).findFirst().orElse(null);
        }
    }

    /** How many buffers of all allocators are still live. */
    int liveBuffers() {
        synchronized (allocators) {
            return allocators.stream().mapToInt(CountingAllocator::live).sum();
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String vendor() {
        return "tests";
    }

    @Override
    public int vendorId() {
        return 0x1e2f;
    }

    @Override
    public String version() {
        return "1.0.0";
    }

    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
        return hardware.stream().filter(d -> d.type() == HardwareDeviceType.NPU)
                .map(d -> new SupportedDevice(d, Map.of(), Map.of())).toList();
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        return new Ep();
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
    }

    @Override
    public List<MemoryInfo> memoryInfos() {
        return List.of(DEVICE, WEIGHTS);
    }

    @Override
    public TensorAllocator createAllocator(MemoryInfo memory) {
        CountingAllocator a = new CountingAllocator(memory);
        allocators.add(a);
        return a;
    }

    @Override
    public void releaseAllocator(TensorAllocator allocator) {
        ((CountingAllocator) allocator).released = true;
        allocatorsReleased.incrementAndGet();
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return Optional.of(new Transfer());
    }

    /** Copies between host memory and the device memory, refusing anything else. */
    private final class Transfer implements DataTransfer {
        @Override
        public boolean canCopy(MemoryDevice source, MemoryDevice target) {
            return source.equals(MemoryDevice.CPU) && target.equals(NPU_MEMORY)
                    || source.equals(NPU_MEMORY) && target.equals(MemoryDevice.CPU);
        }

        /** Copies to host memory, which needs no allocator. */
        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target) {
            if (target.equals(NPU_MEMORY)) {
                throw new IllegalStateException("the runtime must give the device memory's allocator");
            }
            return copy(tensor, source, target, null);
        }

        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator) {
            if (target.equals(NPU_MEMORY)) {
                if (tensor.isOffHeap()) {
                    throw new IllegalStateException("host tensor expected, got " + tensor);
                }
                Tensor t = allocator.allocate(tensor.type(), tensor.shape());
                tensor.copyTo(t.buffer());
                toDevice.incrementAndGet();
                return t;
            }
            if (!tensor.isOffHeap()) {
                throw new IllegalStateException("device tensor expected, got " + tensor);
            }
            toHost.incrementAndGet();
            return tensor.toHeap();
        }
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

    /** Tells whether a tensor's buffer is one of the live blocks of an allocator of this factory. */
    private boolean isLive(Tensor t) {
        synchronized (allocators) {
            for (CountingAllocator a : allocators) {
                if (a.owns(t)) {
                    return true;
                }
            }
        }
        return false;
    }
}
