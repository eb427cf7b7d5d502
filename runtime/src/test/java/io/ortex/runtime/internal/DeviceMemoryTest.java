package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.ValueCopy;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.testing.ModelBuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * EPs that keep tensors in device memory of their own (off the Java heap): the runtime places each value in the
 * memory of the EP that produces it, copies it through the factory's data transfer once per run and memory it is
 * read in, copies initializers once at session creation into read-only memory, hands the caller outputs in host
 * memory, shares one allocator per memory across sessions, and gives every buffer back.
 */
class DeviceMemoryTest {
    private static final HardwareDevice NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x1e2f, 1, "Tests",
            Map.of());
    private static final float[] X = {1, -2, 3, -4, 5, -6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};
    private static final SessionOptions PREFER_NPU =
            new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU);

    private static RuntimeEnvironment environment(DeviceMemoryEp factory) {
        return DeviceTestEpFactory.environment(List.of(NPU), factory);
    }

    private static Map<String, Tensor> feeds() {
        return Map.of("x", Tensor.ofFloats(X.clone(), 2, 3), "y", Tensor.ofFloats(Y.clone(), 2, 3));
    }

    /** What the CPU EP alone computes. */
    private static float[] onCpu(ModelBuilder model) {
        return DeviceTestEpFactory.onCpuAlone(model.bytes(), feeds()).get("out").floats();
    }

    private static ValueCopy copy(Session s, String value, String to) {
        return s.valueCopies().stream().filter(c -> c.value().equals(value) && c.to().equals(to)).findFirst()
                .orElseThrow(() -> new AssertionError("no copy of " + value + " to " + to + ": " + s.valueCopies()));
    }

    @Test
    void valuesStayInDeviceMemoryBetweenPartitionsAndCrossOnlyWhereMemoriesDiffer() {
        DeviceMemoryEp factory = new DeviceMemoryEp("Add", "Mul");
        float[] expected = onCpu(TestModels.addMulRelu());
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(TestModels.addMulRelu().bytes(), PREFER_NPU)) {
            assertEquals(List.of("DeviceMemEP", "DeviceMemEP", "CPUExecutionProvider"),
                    s.assignment().stream().map(NodeAssignment::ep).toList());
            assertEquals(3, s.assignment().stream().map(NodeAssignment::partition).distinct().count());
            // b is copied into read-only memory once, now; nothing else yet
            ValueCopy b = copy(s, "b", "TestNpuWeights");
            assertEquals(ValueCopy.Kind.INITIALIZER, b.kind());
            assertEquals(1, b.count());
            assertEquals(12, b.bytes());
            assertEquals(1, factory.allocator(DeviceMemoryEp.WEIGHTS).live(), "b in read-only memory");
            for (int run = 1; run <= 3; run++) {
                Tensor out = s.run(feeds()).get("out");
                assertFalse(out.isOffHeap());
                assertArrayEquals(expected, out.floats());
                assertEquals(2 * run, factory.transfer.toDevice.get() - 1, "x and y go to the device, b did once");
                assertEquals(run, factory.transfer.toHost.get(), "only p comes back, for the CPU's Relu");
                assertEquals(0, factory.allocator(DeviceMemoryEp.DEVICE).live(),
                        "every device buffer of the run was given back");
            }
            assertEquals(List.of("b:Cpu->TestNpuWeights:INITIALIZER", "x:Cpu->TestNpu:RUN", "y:Cpu->TestNpu:RUN",
                    "p:TestNpu->Cpu:RUN"), s.valueCopies().stream()
                    .map(c -> c.value() + ":" + c.from() + "->" + c.to() + ":" + c.kind()).toList());
            assertEquals(3, copy(s, "x", "TestNpu").count());
            assertEquals(3 * 24, copy(s, "p", "Cpu").bytes());
            // s, between the two device partitions, never left device memory
            assertTrue(s.valueCopies().stream().noneMatch(c -> c.value().equals("s")));
        }
        assertEquals(0, factory.liveBlocks(), "the initializer copy was given back with the session");
        assertEquals(2, factory.allocators.size());
        assertEquals(2, factory.allocatorsReleased.get(), "the environment gave its allocators back");
    }

    @Test
    void aValueReadByTwoDevicePartitionsIsCopiedOnceAndOutputsReachTheCallerInHostMemory() {
        DeviceMemoryEp factory = new DeviceMemoryEp("Add", "Mul");
        float[] expected = onCpu(TestModels.addMulAdd());
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(TestModels.addMulAdd().bytes(), PREFER_NPU)) {
            assertTrue(s.assignment().stream().allMatch(a -> a.ep().equals("DeviceMemEP")), s.assignment().toString());
            Tensor out = s.run(feeds()).get("out");
            assertArrayEquals(expected, out.floats());
            assertEquals(2, factory.transfer.toDevice.get(),
                    "x (read by add_0 and add_1) and y (add_0, mul_0) once each");
            assertEquals(1, factory.transfer.toHost.get(), "out");
            assertEquals(List.of("x:RUN:1", "y:RUN:1", "out:OUTPUT:1"), s.valueCopies().stream()
                    .map(c -> c.value() + ":" + c.kind() + ":" + c.count()).toList());
            assertEquals(0, factory.liveBlocks());
        }
    }

    @Test
    void sessionsOnManyThreadsShareOneAllocatorPerMemoryAndGiveEveryBufferBack() throws Exception {
        DeviceMemoryEp factory = new DeviceMemoryEp("Add", "Mul");
        float[] expected = onCpu(TestModels.addMulRelu());
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try (RuntimeEnvironment env = environment(factory)) {
            try (Session shared = env.createSession(TestModels.addMulRelu().bytes(), PREFER_NPU)) {
                List<Callable<Integer>> jobs = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    boolean own = t % 2 == 0;
                    jobs.add(() -> {
                        int checked = 0;
                        Session s = own ? env.createSession(TestModels.addMulRelu().bytes(), PREFER_NPU) : shared;
                        try {
                            for (int i = 0; i < 25; i++) {
                                assertArrayEquals(expected, s.run(feeds()).get("out").floats());
                                checked++;
                            }
                        } finally {
                            if (own) {
                                s.close();
                            }
                        }
                        return checked;
                    });
                }
                int total = 0;
                for (Future<Integer> f : pool.invokeAll(jobs)) {
                    total += f.get();
                }
                assertEquals(150, total);
                assertEquals(2, factory.allocators.size(), "one allocator per memory for every session");
                assertEquals(1, factory.allocator(DeviceMemoryEp.WEIGHTS).live(), "the open session's b");
                assertEquals(0, factory.allocator(DeviceMemoryEp.DEVICE).live());
                assertEquals(75, copy(shared, "x", "TestNpu").count());
            }
            assertEquals(0, factory.liveBlocks(), "every buffer was given back after the sessions closed");
            assertEquals(0, factory.allocatorsReleased.get(), "the allocators stay with the environment");
            CountingDeviceAllocator device = factory.allocator(DeviceMemoryEp.DEVICE);
            assertEquals(device.allocated.get(), device.freed.get());
            assertTrue(device.allocated.get() >= 150 * 4, "x, y, s, p each run: " + device.allocated.get());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(2, factory.allocatorsReleased.get());
    }

    @Test
    void removingTheLibraryGivesItsAllocatorsBackBeforeItsFactoryIsReleased() {
        DeviceMemoryEp factory = new DeviceMemoryEp("Add", "Mul");
        float[] expected = onCpu(TestModels.addMulRelu());
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(NPU, TestDevices.CPU),
                List.of(new CpuEpFactory()))) {
            env.registerFactories("devmem", List.of(factory), false);
            try (Session s = env.createSession(TestModels.addMulRelu().bytes(), PREFER_NPU)) {
                assertEquals("DeviceMemEP", s.assignment().get(0).ep());
                assertArrayEquals(expected, s.run(feeds()).get("out").floats());
            }
            assertEquals(2, factory.allocators.size());
            assertEquals(0, factory.allocatorsReleased.get(), "kept for the next session");
            env.unregisterLibrary("devmem");
            assertEquals(2, factory.allocatorsReleased.get(), "given back with the library");
            assertEquals(0, factory.liveBlocks());
        }
        assertEquals(2, factory.allocatorsReleased.get(), "not twice");
    }

    @Test
    void aFailedRunGivesItsDeviceBuffersBack() {
        DeviceMemoryEp factory = new DeviceMemoryEp("Add", "Mul");
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(TestModels.addMulRelu().bytes(), PREFER_NPU)) {
            Map<String, Tensor> wrong = Map.of("x", Tensor.ofFloats(X.clone(), 2, 3),
                    "y", Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 2, 6));
            assertThrows(RuntimeException.class, () -> s.run(wrong));
            assertEquals(0, factory.allocator(DeviceMemoryEp.DEVICE).live());
        }
    }

    @Test
    void offHeapTensorsKeepTheTensorApiAndAreReleasedOnce() {
        int[] released = new int[1];
        ByteBuffer block = ByteBuffer.allocateDirect(24);
        Tensor.ofFloats(X.clone(), 2, 3).copyTo(block);
        Tensor t = Tensor.ofBuffer(ElementType.FLOAT, new long[] {2, 3}, block, () -> released[0]++);
        assertTrue(t.isOffHeap());
        assertEquals(ElementType.FLOAT, t.type());
        assertArrayEquals(new long[] {2, 3}, t.shape());
        assertEquals(24, t.byteSize());
        assertArrayEquals(X, t.toHeap().floats());
        assertArrayEquals(X, t.toFloatArray());
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, t::floats);
        assertTrue(e.getMessage().contains("outside the Java heap"), e.getMessage());
        Tensor view = t.reshape(6);
        assertArrayEquals(X, view.toHeap().floats());
        view.close();
        t.close();
        assertEquals(1, released[0], "a view shares its tensor's one release");
        assertThrows(InvalidArgumentException.class, () -> Tensor.ofBuffer(ElementType.FLOAT, new long[] {2, 3},
                ByteBuffer.allocate(24), () -> { }));
        assertThrows(InvalidArgumentException.class, () -> Tensor.ofBuffer(ElementType.FLOAT, new long[] {2, 4},
                ByteBuffer.allocateDirect(24), () -> { }));
        Tensor.ofFloats(X, 2, 3).close();
    }
}
