package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.ValueCopy;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpMemory;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.TensorAllocator;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.RuntimeEnvironment;
import io.ortex.runtime.internal.discovery.HardwareDiscovery;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The example EP working in the emulated NPU's own memory (EP option {@code memory=device}): its partitions take
 * their inputs and give their outputs in direct buffers of its allocator, an output read by its next partition stays
 * there, only what the CPU EP reads is copied to host, and the outputs equal the CPU EP's.
 */
class DeviceMemoryTest {
    private static final Map<String, String> CONFIG = Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1");
    private static final List<HardwareDevice> HARDWARE = new HardwareDiscovery(CONFIG).discover();
    private final Random random = new Random(14);

    /**
     * {@code out = MatMul(x, w) + Sigmoid(MatMul(x, w))}: the EP claims the MatMul and the Add as two partitions (the
     * Sigmoid, which it does not implement, runs on the CPU EP between them), so {@code m} goes from one example
     * partition to the next.
     */
    private OnnxModel split() {
        return new ModelBuilder().input("x", 4, 8)
                .initializer("w", Tensors.random(random, 8, 6))
                .node("MatMul", "matmul", List.of("x", "w"), List.of("m"))
                .node("Sigmoid", "sigmoid", List.of("m"), List.of("g"))
                .valueInfo("g", ElementType.FLOAT)
                .node("Add", "add", List.of("m", "g"), List.of("out"))
                .output("out").build();
    }

    private static RuntimeEnvironment environment(io.ortex.api.spi.EpFactory example) {
        RuntimeEnvironment env = new RuntimeEnvironment(CONFIG, HARDWARE);
        env.registerFactories("cpu", List.of(new CpuEpFactory()), false);
        env.registerFactories("example", List.of(example), true);
        return env;
    }

    private static List<EpDevice> devices(Environment env, String ep) {
        return env.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
    }

    private static SessionOptions options(Environment env, String memory) {
        SessionOptions o = new SessionOptions().intraOpThreads(1)
                .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL);
        o.appendExecutionProvider(devices(env, ExampleEpFactory.NAME),
                memory == null ? Map.of() : Map.of(ExampleEpFactory.OPTION_MEMORY, memory));
        return o.appendExecutionProvider(devices(env, CpuEpFactory.NAME), Map.of());
    }

    private static String describe(ValueCopy c) {
        return c.value() + ":" + c.from() + "->" + c.to() + ":" + c.kind();
    }

    @Test
    void anOutputReadByTheNextExamplePartitionStaysInDeviceMemory() {
        OnnxModel model = split();
        Map<String, Tensor> feeds = Map.of("x", Tensors.random(random, 4, 8));
        Map<String, Tensor> expected = ExampleRuns.runOnCpu(model, feeds);
        try (RuntimeEnvironment env = environment(new ExampleEpFactory());
             Session s = env.createSession(model.proto().toByteArray(), options(env, "device"))) {
            assertEquals(List.of(ExampleEpFactory.NAME, "CPUExecutionProvider", ExampleEpFactory.NAME),
                    s.assignment().stream().map(NodeAssignment::ep).toList());
            assertEquals(3, s.assignment().stream().map(NodeAssignment::partition).distinct().count());
            for (int run = 1; run <= 2; run++) {
                Map<String, Tensor> out = s.run(feeds);
                assertFalse(out.get("out").isOffHeap(), "the caller gets host memory");
                ExampleRuns.assertClose(expected, out);
            }
            // m goes to the CPU for the Sigmoid, but not back: the Add reads the one the MatMul left on the NPU
            assertEquals(List.of("x:Cpu->ExampleNpu:RUN", "m:ExampleNpu->Cpu:RUN", "g:Cpu->ExampleNpu:RUN",
                    "out:ExampleNpu->Cpu:OUTPUT"), s.valueCopies().stream().map(DeviceMemoryTest::describe).toList());
            assertTrue(s.valueCopies().stream().allMatch(c -> c.count() == 2), s.valueCopies().toString());
            assertEquals(2 * 4 * 8 * 4, s.valueCopies().get(0).bytes());
        }
    }

    @Test
    void inHostMemoryTheExampleEpCopiesNothing() {
        OnnxModel model = split();
        Map<String, Tensor> feeds = Map.of("x", Tensors.random(random, 4, 8));
        Map<String, Tensor> expected = ExampleRuns.runOnCpu(model, feeds);
        for (String memory : new String[] {null, "host"}) {
            try (RuntimeEnvironment env = environment(new ExampleEpFactory());
                 Session s = env.createSession(model.proto().toByteArray(), options(env, memory))) {
                ExampleRuns.assertClose(expected, s.run(feeds));
                assertEquals(List.of(), s.valueCopies());
            }
        }
    }

    @Test
    void sessionsOnSeveralThreadsMatchTheCpuEpAndGiveEveryBlockBack() throws Exception {
        OnnxModel model = split();
        Map<String, Tensor> feeds = Map.of("x", Tensors.random(random, 4, 8));
        Map<String, Tensor> expected = ExampleRuns.runOnCpu(model, feeds);
        Recording example = new Recording();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (RuntimeEnvironment env = environment(example)) {
            List<Future<?>> jobs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                jobs.add(pool.submit(() -> {
                    try (Session s = env.createSession(model.proto().toByteArray(), options(env, "device"))) {
                        for (int i = 0; i < 20; i++) {
                            ExampleRuns.assertClose(expected, s.run(feeds));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : jobs) {
                f.get();
            }
            assertEquals(2, example.allocators.size(), "one allocator per memory, shared by the four sessions");
            for (DeviceMemory.Allocator a : example.allocators) {
                assertEquals(0, a.liveBlocks(), a.memoryInfo() + " holds blocks after every session closed");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aPartitionRefusesInputsOnTheJavaHeap() {
        OnnxModel model = split();
        ExampleEpFactory factory = new ExampleEpFactory();
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(model.proto().toByteArray(), options(env, "device"))) {
            assertTrue(s.valueCopies().size() > 0);
        }
        ExampleExecutionProvider ep = (ExampleExecutionProvider) factory.createEp(
                List.of(new io.ortex.api.spi.SupportedDevice(ExampleEpFactory.VIRTUAL_NPU, Map.of(), Map.of())),
                Map.of("ep.exampleexecutionprovider.memory", "device"));
        assertEquals(DeviceMemory.NPU_MEMORY, ep.memoryDevice());
        DeviceMemory.Allocator allocator = new DeviceMemory.Allocator(DeviceMemory.DEVICE);
        KernelContext context = new KernelContext() {
            @Override
            public int intraOpThreads() {
                return 1;
            }

            @Override
            public void parallelFor(int count, int minChunk, RangeBody body) {
                body.run(0, count);
            }

            @Override
            public Optional<TensorAllocator> allocator(MemoryDevice memory) {
                return Optional.of(allocator);
            }
        };
        OnnxModel relu = new ModelBuilder().input("x", 2, 3).node("Relu", "relu", List.of("x"), List.of("y"))
                .output("y").build();
        ComputeKernel kernel = ep.compile(List.of(relu.graph()),
                List.of(new TestFusedNode("relu_node", List.of("x"), List.of("y")))).get(0);
        assertTrue(kernel instanceof DeviceMemoryKernel, kernel.toString());
        Tensor heap = Tensor.ofFloats(new float[] {1, -1, 2, -2, 3, -3}, 2, 3);
        Exception e = assertThrows(RuntimeException.class, () -> kernel.compute(context, new Tensor[] {heap}));
        assertTrue(e.getMessage().contains("relu_node") && e.getMessage().contains("Java heap"), e.getMessage());
        Tensor onDevice = allocator.allocate(ElementType.FLOAT, 2, 3);
        heap.copyTo(onDevice.buffer());
        Tensor[] out = kernel.compute(context, new Tensor[] {onDevice});
        assertTrue(out[0].isOffHeap());
        assertEquals(List.of(1f, 0f, 2f, 0f, 3f, 0f), boxed(out[0].toHeap().floats()));
        out[0].close();
        onDevice.close();
        assertEquals(0, allocator.liveBlocks());
    }

    @Test
    void aBadMemoryOptionIsRefusedNamingIt() {
        ExampleEpFactory factory = new ExampleEpFactory();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> factory.createEp(
                List.of(new io.ortex.api.spi.SupportedDevice(ExampleEpFactory.VIRTUAL_NPU, Map.of(), Map.of())),
                Map.of("ep.exampleexecutionprovider.memory", "gpu")));
        assertTrue(e.getMessage().contains("'memory'") && e.getMessage().contains("gpu"), e.getMessage());
        assertEquals(List.of(MemoryInfo.Kind.DEVICE, MemoryInfo.Kind.READ_ONLY),
                factory.memoryInfos().stream().map(MemoryInfo::kind).toList());
    }

    private static List<Float> boxed(float[] a) {
        List<Float> out = new ArrayList<>();
        for (float f : a) {
            out.add(f);
        }
        return out;
    }

    /** The example factory, keeping the allocators it creates. */
    private static final class Recording implements io.ortex.api.spi.EpFactory, EpMemory {
        private final ExampleEpFactory inner = new ExampleEpFactory();
        final List<DeviceMemory.Allocator> allocators = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public String vendor() {
            return inner.vendor();
        }

        @Override
        public int vendorId() {
            return inner.vendorId();
        }

        @Override
        public String version() {
            return inner.version();
        }

        @Override
        public List<io.ortex.api.spi.SupportedDevice> supportedDevices(List<HardwareDevice> hardware,
                                                                      Map<String, String> config) {
            return inner.supportedDevices(hardware, config);
        }

        @Override
        public io.ortex.api.spi.ExecutionProvider createEp(List<io.ortex.api.spi.SupportedDevice> devices,
                                                           Map<String, String> config) {
            return inner.createEp(devices, config);
        }

        @Override
        public void releaseEp(io.ortex.api.spi.ExecutionProvider ep) {
            inner.releaseEp(ep);
        }

        @Override
        public Optional<io.ortex.api.spi.DataTransfer> dataTransfer() {
            return inner.dataTransfer();
        }

        @Override
        public List<MemoryInfo> memoryInfos() {
            return inner.memoryInfos();
        }

        @Override
        public TensorAllocator createAllocator(MemoryInfo memory) {
            DeviceMemory.Allocator a = (DeviceMemory.Allocator) inner.createAllocator(memory);
            allocators.add(a);
            return a;
        }

        @Override
        public void releaseAllocator(TensorAllocator allocator) {
            inner.releaseAllocator(allocator);
        }
    }
}
