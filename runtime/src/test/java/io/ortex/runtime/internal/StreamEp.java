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
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.SyncNotification;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test EP factory whose EP works in a GPU memory of its own (direct buffers) and, when stream aware, queues every
 * kernel and every copy out of device memory on a stream: a thread of its own that runs the work in order, each
 * kernel after a delay, so that a reader the runtime does not make wait sees a buffer not yet written. Every call the
 * runtime makes into the streams, notifications and run hooks is recorded in a shared log, as {@code name.call}. Its
 * EP claims the nodes of its op types (Add, Mul: float, the smaller operand repeated along the larger), each alone.
 * Two such factories on two GPUs copy directly between their memories.
 */
final class StreamEp extends DeviceTestEpFactory {
    static final int VENDOR = 0x5eed;

    private final List<String> ops;
    private final List<String> log;
    private final MemoryDevice memory;
    private final MemoryInfo info;
    /** Whether the factory says it is stream aware. */
    volatile boolean streamAware = true;
    /** Whether the EP creates its stream itself, else the factory does. */
    volatile boolean epCreatesStream = true;
    /** Whether the factory creates no stream at all although it says it is aware. */
    volatile boolean noStream;
    /** Whether notifications return from waits at once: a runtime whose waits do nothing. */
    volatile boolean skipWaits;
    /** Whether the kernels' queued work throws, as a device fault would. */
    volatile boolean failWork;
    /** How long each kernel waits on the stream before it computes. */
    volatile long delayMillis = 2;
    final AtomicInteger liveStreams = new AtomicInteger();

    StreamEp(String name, int deviceId, List<String> log, String... ops) {
        super(name, VENDOR, HardwareDeviceType.GPU, deviceId);
        this.log = log;
        this.ops = List.of(ops);
        this.memory = memory(deviceId);
        this.info = new MemoryInfo("TestGpu" + deviceId, memory, MemoryInfo.Kind.DEVICE);
    }

    static MemoryDevice memory(int deviceId) {
        return new MemoryDevice(HardwareDeviceType.GPU, MemoryDevice.MemoryType.DEFAULT, VENDOR, deviceId);
    }

    static HardwareDevice gpu(int deviceId) {
        return new HardwareDevice(HardwareDeviceType.GPU, VENDOR, deviceId, "Tests", Map.of());
    }

    private void record(String entry) {
        log.add(entry);
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        return new Ep();
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
        record(name + ".releaseEp");
    }

    @Override
    public boolean isStreamAware() {
        return streamAware;
    }

    @Override
    public Optional<SyncStream> createSyncStream(MemoryDevice device, Map<String, String> options) {
        if (noStream || !device.equals(memory)) {
            return Optional.empty();
        }
        record(name + ".createStream(factory)");
        return Optional.of(new Stream());
    }

    @Override
    public List<MemoryInfo> memoryInfos() {
        return List.of(info);
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return Optional.of(new Transfer());
    }

    /** Tells whether a memory device is one of these test GPUs'. */
    private static boolean isTestGpu(MemoryDevice d) {
        return d.type() == HardwareDeviceType.GPU && d.vendorId() == VENDOR;
    }

    /** A stream: one thread running its work in order; failures are reported by the next host wait. */
    final class Stream implements SyncStream {
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name + "-stream");
            t.setDaemon(true);
            return t;
        });
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Stream() {
            liveStreams.incrementAndGet();
        }

        String owner() {
            return name;
        }

        void enqueue(Runnable work) {
            thread.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e);
                }
            });
        }

        @Override
        public Object handle() {
            return this;
        }

        @Override
        public SyncNotification createNotification() {
            return new Notification(this);
        }

        @Override
        public void flush() {
            record(name + ".flush");
        }

        @Override
        public void onSessionRunEnd() {
            record(name + ".onSessionRunEnd");
        }

        @Override
        public void close() {
            record(name + ".releaseStream");
            thread.shutdown();
            try {
                thread.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            liveStreams.decrementAndGet();
        }
    }

    /** A point in a stream's work. */
    private final class Notification implements SyncNotification {
        private final Stream stream;
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Notification(Stream stream) {
            this.stream = stream;
        }

        @Override
        public void activate() {
            record(name + ".activate");
            stream.enqueue(() -> done.complete(null));
        }

        @Override
        public void waitOnDevice(SyncStream consumer) {
            Stream other = (Stream) consumer;
            record(name + ".waitOnDevice(" + other.owner() + ")");
            if (!skipWaits) {
                other.enqueue(done::join);
            }
        }

        @Override
        public void waitOnHost() {
            record(name + ".waitOnHost");
            if (!skipWaits) {
                done.join();
                Throwable f = stream.failure.getAndSet(null);
                if (f != null) {
                    throw new IllegalStateException(name + " stream work failed: " + f, f);
                }
            }
        }
    }

    /**
     * Copies between host memory and the test GPUs: into device memory at once (reading the host source before it
     * returns), out of device memory on the given stream.
     */
    private final class Transfer implements DataTransfer {
        @Override
        public boolean canCopy(MemoryDevice source, MemoryDevice target) {
            return source.equals(MemoryDevice.CPU) && isTestGpu(target) || isTestGpu(source)
                    && (target.equals(MemoryDevice.CPU) || isTestGpu(target) && !target.equals(source));
        }

        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target) {
            throw new IllegalStateException("the runtime must call the stream form");
        }

        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator,
                           SyncStream stream) {
            String where = stream == null ? "" : "@" + ((Stream) stream).owner();
            record("copy:" + label(source) + "->" + label(target) + where);
            if (source.equals(MemoryDevice.CPU)) {
                Tensor t = allocator.allocate(tensor.type(), tensor.shape());
                tensor.copyTo(t.buffer());
                return t;
            }
            Tensor out = target.equals(MemoryDevice.CPU) ? Tensor.zeros(tensor.type(), tensor.shape())
                    : allocator.allocate(tensor.type(), tensor.shape());
            Runnable work = () -> {
                if (target.equals(MemoryDevice.CPU)) {
                    Tensor read = tensor.toHeap();
                    System.arraycopy(read.data(), 0, out.data(), 0, read.size());
                } else {
                    tensor.copyTo(out.buffer());
                }
            };
            if (stream == null) {
                work.run();
            } else {
                ((Stream) stream).enqueue(work);
            }
            return out;
        }
    }

    private static String label(MemoryDevice d) {
        return d.equals(MemoryDevice.CPU) ? "Cpu" : "Gpu" + d.deviceId();
    }

    /** Claims every node of its op types, each alone; records its run hooks. */
    private final class Ep implements ExecutionProvider {
        @Override
        public String name() {
            return name;
        }

        @Override
        public MemoryDevice memoryDevice() {
            return memory;
        }

        @Override
        public Optional<SyncStream> createSyncStream(MemoryDevice device) {
            if (!epCreatesStream || noStream) {
                return Optional.empty();
            }
            record(name + ".createStream(ep)");
            return Optional.of(new Stream());
        }

        @Override
        public void onRunStart(Map<String, String> runConfig) {
            record(name + ".onRunStart");
        }

        @Override
        public void onRunEnd(Map<String, String> runConfig, boolean syncStream) {
            record(name + ".onRunEnd(" + syncStream + ")");
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
                kernels.add(new Kernel(g.nodes().get(0).opType()));
            }
            return kernels;
        }
    }

    /** Computes one elementwise op on device memory, on the stream where the run gives one. */
    private final class Kernel implements ComputeKernel {
        private final String op;

        Kernel(String op) {
            this.op = op;
        }

        @Override
        public Tensor[] compute(KernelContext context, Tensor[] inputs) {
            for (int i = 0; i < inputs.length; i++) {
                if (inputs[i] == null || !inputs[i].isOffHeap()) {
                    throw new IllegalStateException(op + " input " + i + " is not in device memory");
                }
            }
            Tensor big = inputs[0].size() >= inputs[1].size() ? inputs[0] : inputs[1];
            TensorAllocator a = context.allocator(memory).orElseThrow();
            Tensor out = a.allocate(ElementType.FLOAT, big.shape());
            Optional<SyncStream> stream = context.syncStream();
            if (streamAware != stream.isPresent()) {
                throw new IllegalStateException(op + ": stream aware " + streamAware + " but given " + stream);
            }
            Tensor[] in = inputs.clone();
            Runnable work = () -> {
                if (delayMillis > 0) {
                    try {
                        Thread.sleep(delayMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (failWork) {
                    throw new IllegalStateException(name + " device fault in " + op);
                }
                FloatBuffer x = in[0].buffer().asFloatBuffer();
                FloatBuffer y = in[1].buffer().asFloatBuffer();
                FloatBuffer o = out.buffer().asFloatBuffer();
                for (int i = 0; i < out.size(); i++) {
                    float l = x.get(i % x.capacity());
                    float r = y.get(i % y.capacity());
                    o.put(i, op.equals("Add") ? l + r : l * r);
                }
            };
            if (stream.isPresent()) {
                record(name + ".queue(" + op + ")");
                ((Stream) stream.get()).enqueue(work);
            } else {
                work.run();
            }
            return new Tensor[] {out};
        }
    }

    /** A log that several threads append to. */
    static List<String> newLog() {
        return Collections.synchronizedList(new ArrayList<>());
    }
}
