package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataTransfer;
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
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.SyncNotification;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A test EP factory whose EPs run single nodes through a kernel registry in an emulated device memory outside the
 * Java heap, one kernel per placement: {@code Add} and {@code Relu} read and write device memory ({@code DEFAULT});
 * {@code Reshape} returns its data input reshaped, declared an alias of it, and reads its shape on the host
 * ({@code CPU_INPUT}); {@code Shape} reads device memory and writes its int64 output on the host ({@code CPU_OUTPUT});
 * {@code Mul} multiplies a device tensor by a scalar it reads on the host ({@code CPU_INPUT}); {@code Not} negates a
 * device bool; {@code If} is the runtime's control-flow kernel; {@code Flatten} declares an alias but returns a new
 * buffer and {@code Size} declares its output {@code CPU_OUTPUT} but returns it in device memory (broken kernels).
 * Every kernel REFUSES a tensor in the wrong memory: a device input that is no live block of this factory's
 * allocators, or a host input that is off-heap; its allocators count every block handed out and given back, and its
 * data transfer counts the copies each way. Made stream aware, its kernels queue their device work on
 * the session's stream (a thread of its own, each item after a short delay) and copies out of device memory are queued
 * there too, so that a host read the runtime does not make wait sees a value not yet written.
 */
final class RegistryDeviceEp extends DeviceTestEpFactory {
    static final String NAME = "RegistryDeviceEP";
    static final MemoryDevice NPU_MEMORY = new MemoryDevice(HardwareDeviceType.NPU, MemoryDevice.MemoryType.DEFAULT,
            0x1e2f, 0);
    static final MemoryInfo DEVICE = new MemoryInfo("RegNpu", NPU_MEMORY, MemoryInfo.Kind.DEVICE);
    static final HardwareDevice NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x1e2f, 1, "Tests", Map.of());

    private final Set<String> ops;
    final HostDeviceTransfer transfer = new StreamTransfer();
    private final boolean streamAware;

    /**
     * Creates the factory.
     *
     * @param ops the ops its EPs claim (each where the registry has a kernel)
     */
    RegistryDeviceEp(String... ops) {
        this(false, ops);
    }

    /**
     * Creates the factory.
     *
     * @param streamAware whether its EPs queue their device work on a stream
     * @param ops the ops its EPs claim (each where the registry has a kernel)
     */
    RegistryDeviceEp(boolean streamAware, String... ops) {
        super(NAME, 0x1e2f, HardwareDeviceType.NPU, -1);
        this.streamAware = streamAware;
        this.ops = Set.of(ops);
    }

    @Override
    public boolean isStreamAware() {
        return streamAware;
    }

    /** One thread running device work in order, each item after a delay. */
    private static final class Stream implements SyncStream {
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, NAME + "-stream");
            t.setDaemon(true);
            return t;
        });

        void enqueue(Runnable work) {
            thread.execute(() -> {
                try {
                    Thread.sleep(3);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                work.run();
            });
        }

        @Override
        public Object handle() {
            return this;
        }

        @Override
        public SyncNotification createNotification() {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Stream self = this;
            return new SyncNotification() {
                @Override
                public void activate() {
                    self.thread.execute(() -> done.complete(null));
                }

                @Override
                public void waitOnDevice(SyncStream consumer) {
                    ((Stream) consumer).thread.execute(done::join);
                }

                @Override
                public void waitOnHost() {
                    done.join();
                }
            };
        }

        @Override
        public void flush() {
        }

        @Override
        public void onSessionRunEnd() {
        }

        @Override
        public void close() {
            thread.shutdown();
            try {
                thread.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs device work on the context's stream where it has one, else at once. */
    private static void onStream(KernelComputeContext context, Runnable work) {
        Optional<SyncStream> stream = context.syncStream();
        if (stream.isPresent()) {
            ((Stream) stream.get()).enqueue(work);
        } else {
            work.run();
        }
    }

    /** The device memory's allocator, created by the environment. */
    CountingDeviceAllocator device() {
        return Objects.requireNonNull(allocator(DEVICE), "no allocator of the device memory yet");
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        return new Ep();
    }

    @Override
    public List<MemoryInfo> memoryInfos() {
        return List.of(DEVICE);
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return Optional.of(transfer);
    }

    /** The host-device transfer, whose copies to the host go on the stream they are given. */
    private final class StreamTransfer extends HostDeviceTransfer {
        StreamTransfer() {
            super(NPU_MEMORY, RegistryDeviceEp.this::isLive);
        }

        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator,
                           SyncStream stream) {
            if (stream == null || target.equals(NPU_MEMORY)) {
                return copy(tensor, source, target, allocator);
            }
            checkLive(tensor);
            toHost.incrementAndGet();
            Tensor out = Tensor.zeros(tensor.type(), tensor.shape());
            ((Stream) stream).enqueue(() -> {
                Tensor read = tensor.toHeap();
                System.arraycopy(read.data(), 0, out.data(), 0, read.size());
            });
            return out;
        }
    }

    /** Claims the nodes of its ops that its registry has a kernel for, each alone. */
    private final class Ep implements ExecutionProvider {
        private final KernelRegistry registry = new KernelRegistry();

        Ep() {
            Set<ElementType> numbers = Set.of(ElementType.FLOAT, ElementType.INT64);
            registry.add(KernelDef.builder("Add").since(7).typeConstraint("T", numbers, 0, 1).build(),
                    info -> new Elementwise("Add"));
            registry.add(KernelDef.builder("Relu").since(6).build(), info -> new Elementwise("Relu"));
            registry.add(KernelDef.builder("Not").since(1).build(), info -> new Elementwise("Not"));
            registry.add(KernelDef.builder("Reshape").since(5).alias(0, 0)
                    .inputMemory(1, KernelMemoryType.CPU_INPUT).build(), info -> new ReshapeKernel());
            registry.add(KernelDef.builder("Shape").since(1).outputMemory(0, KernelMemoryType.CPU_OUTPUT).build(),
                    info -> new ShapeKernel());
            registry.add(KernelDef.builder("Mul").since(7).typeConstraint("T", Set.of(ElementType.FLOAT), 0, 1)
                    .inputMemory(1, KernelMemoryType.CPU_INPUT).build(), info -> new ScaleKernel());
            registry.add(KernelDef.builder("Flatten").since(1).alias(0, 0).build(), info -> new CopyingAlias());
            registry.add(KernelDef.builder("Size").since(1).outputMemory(0, KernelMemoryType.CPU_OUTPUT).build(),
                    info -> new DeviceSize());
            registry.add(KernelDef.builder("If").since(1).inputMemory(0, KernelMemoryType.CPU_INPUT).build(),
                    KernelInfo::controlFlowKernel);
        }

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public MemoryDevice memoryDevice() {
            return NPU_MEMORY;
        }

        @Override
        public Optional<SyncStream> createSyncStream(MemoryDevice device) {
            return streamAware ? Optional.of(new Stream()) : Optional.empty();
        }

        @Override
        public Optional<KernelRegistry> kernelRegistry() {
            return Optional.of(registry);
        }

        @Override
        public void getCapability(GraphView graph, GraphSupport support) {
            for (NodeView n : graph.nodes()) {
                if (ops.contains(n.opType()) && support.lookUpKernel(n).isPresent()) {
                    support.addSingleNode(n);
                }
            }
        }

        @Override
        public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
            throw new UnsupportedOperationException(NAME + " claims single nodes only");
        }
    }

    /** Checks that a kernel input is a live block of device memory. */
    private Tensor onDevice(String op, int index, Tensor t) {
        if (t == null || !t.isOffHeap() || !isLive(t)) {
            throw new IllegalStateException(op + " input " + index + " is not in device memory: " + t);
        }
        return t;
    }

    /** Checks that a kernel input is in host memory. */
    private static Tensor onHost(String op, int index, Tensor t) {
        if (t == null || t.isOffHeap()) {
            throw new IllegalStateException(op + " input " + index + " is not in host memory: " + t);
        }
        return t;
    }

    private static Tensor allocate(KernelComputeContext context, ElementType type, long[] shape) {
        TensorAllocator a = context.allocator(NPU_MEMORY).orElseThrow(() ->
                new IllegalStateException("no allocator of device memory in the kernel's context"));
        return a.allocate(type, shape);
    }

    /** Add (float or int64, the second operand repeated), Relu (float), Not (bool), all in device memory. */
    private final class Elementwise implements KernelImpl {
        private final String op;

        Elementwise(String op) {
            this.op = op;
        }

        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            Tensor a = onDevice(op, 0, inputs[0]);
            Tensor b = op.equals("Add") ? onDevice(op, 1, inputs[1]) : null;
            Tensor out = allocate(context, a.type(), a.shape());
            onStream(context, () -> run(a, b, out));
            return new Tensor[] {out};
        }

        private void run(Tensor a, Tensor b, Tensor out) {
            ByteBuffer ab = a.buffer();
            ByteBuffer ob = out.buffer();
            if (op.equals("Not")) {
                for (int i = 0; i < a.size(); i++) {
                    ob.put(i, (byte) (ab.get(i) == 0 ? 1 : 0));
                }
            } else if (op.equals("Relu")) {
                for (int i = 0; i < a.size(); i++) {
                    ob.putFloat(4 * i, Math.max(0f, ab.getFloat(4 * i)));
                }
            } else {
                ByteBuffer bb = b.buffer();
                for (int i = 0; i < a.size(); i++) {
                    int j = i % b.size();
                    if (a.type() == ElementType.INT64) {
                        ob.putLong(8 * i, ab.getLong(8 * i) + bb.getLong(8 * j));
                    } else {
                        ob.putFloat(4 * i, ab.getFloat(4 * i) + bb.getFloat(4 * j));
                    }
                }
            }
        }
    }

    /** Reshape: the data in device memory reshaped (an alias), the shape read on the host. */
    private final class ReshapeKernel implements KernelImpl {
        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            Tensor data = onDevice("Reshape", 0, inputs[0]);
            long[] shape = onHost("Reshape", 1, inputs[1]).longs().clone();
            return new Tensor[] {data.reshape(shape)};
        }
    }

    /** Shape: reads a device tensor's shape, writes it on the host. */
    private final class ShapeKernel implements KernelImpl {
        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            long[] shape = onDevice("Shape", 0, inputs[0]).shape();
            Tensor out = context.allocate(ElementType.INT64, shape.length);
            System.arraycopy(shape, 0, out.longs(), 0, shape.length);
            return new Tensor[] {out};
        }
    }

    /** Mul by a scalar: the tensor in device memory, the scalar read on the host. */
    private final class ScaleKernel implements KernelImpl {
        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            Tensor a = onDevice("Mul", 0, inputs[0]);
            // read on the host now, as a kernel reads a launch parameter: the runtime must have waited for it
            float k = onHost("Mul", 1, inputs[1]).floats()[0];
            Tensor out = allocate(context, a.type(), a.shape());
            onStream(context, () -> {
                ByteBuffer ab = a.buffer();
                ByteBuffer ob = out.buffer();
                for (int i = 0; i < a.size(); i++) {
                    ob.putFloat(4 * i, ab.getFloat(4 * i) * k);
                }
            });
            return new Tensor[] {out};
        }
    }

    /** Declares its output an alias of its input but returns a new block: the runtime must refuse it. */
    private final class CopyingAlias implements KernelImpl {
        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            Tensor a = onDevice("Flatten", 0, inputs[0]);
            Tensor out = allocate(context, a.type(), a.shape());
            out.buffer().put(a.buffer());
            return new Tensor[] {out};
        }
    }

    /** Declares its output CPU_OUTPUT but returns it in device memory: the runtime must refuse it. */
    private final class DeviceSize implements KernelImpl {
        @Override
        public Tensor[] compute(KernelComputeContext context, Tensor[] inputs) {
            Tensor a = onDevice("Size", 0, inputs[0]);
            Tensor out = allocate(context, ElementType.INT64, new long[0]);
            out.buffer().putLong(0, a.size());
            return new Tensor[] {out};
        }
    }
}
