package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import java.lang.reflect.Array;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Models split across a plugin EP and the CPU EP (ONNX Runtime's PartiallySupportedModel scenario), and EPs that
 * work in their own memory, reached through their factory's data transfer.
 */
class PluginEpExecutionTest {
    private static final HardwareDevice NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x17cb, 1, "Qualcomm",
            Map.of());
    private static final MemoryDevice NPU_MEMORY = new MemoryDevice(HardwareDeviceType.NPU,
            MemoryDevice.MemoryType.DEFAULT, 0x17cb, 0);
    private static final float[] X = {1, -2, 3, -4, 5, -6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};

    @TempDir
    static Path dir;
    static Path mulJar;

    @BeforeAll
    static void compilePlugin() throws Exception {
        mulJar = new PluginJar().build(dir, "mul-ep.jar");
    }

    private static Map<String, Tensor> feeds() {
        return Map.of("x", Tensor.ofFloats(X, 2, 3), "y", Tensor.ofFloats(Y, 2, 3));
    }

    @Test
    void aPartiallySupportedModelIsSplitBetweenThePluginEpAndTheCpuEp() {
        try (RuntimeEnvironment env = LibraryRegistrationTest.newEnvironment(Map.of())) {
            env.registerLibrary("example_ep", mulJar);
            List<EpDevice> mine = LibraryRegistrationTest.devicesOf(env, "MulEP");
            SessionOptions explicit = new SessionOptions().appendExecutionProvider(mine, Map.of());
            SessionOptions preferCpu = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_CPU);
            for (SessionOptions o : List.of(explicit, preferCpu)) {
                try (Session s = env.createSession(TestModels.addMulAdd().bytes(), o)) {
                    assertEquals(List.of("MulEP", "CPUExecutionProvider"), s.executionProviders());
                    List<NodeAssignment> a = s.assignment();
                    assertEquals(List.of("add_0", "mul_0", "add_1"), a.stream().map(NodeAssignment::node).toList());
                    assertEquals(List.of("Add", "Mul", "Add"), a.stream().map(NodeAssignment::opType).toList());
                    assertEquals(List.of("CPUExecutionProvider", "MulEP", "CPUExecutionProvider"),
                            a.stream().map(NodeAssignment::ep).toList());
                    assertEquals(3, a.stream().map(NodeAssignment::partition).distinct().count(),
                            "three partitions: " + a);
                    assertTrue(a.get(1).partition().startsWith("MulEP_MulEP_"), a.get(1).partition());
                    for (int i = 0; i < 3; i++) {
                        assertArrayEquals(TestModels.addMulAddExpected(X, Y), s.run(feeds()).get("out").floats());
                    }
                }
            }
            env.unregisterLibrary("example_ep");
            assertEquals(List.of(), PluginCalls.violations("MulEP"));
        }
    }

    /** A transfer between host memory and the NPU's that counts its copies and remembers what it produced. */
    private static class CountingTransfer implements DataTransfer {
        final AtomicInteger toDevice = new AtomicInteger();
        final AtomicInteger toHost = new AtomicInteger();
        final Set<Tensor> onDevice = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        final Set<Tensor> onHost = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

        @Override
        public boolean canCopy(MemoryDevice source, MemoryDevice target) {
            return source.equals(MemoryDevice.CPU) && target.equals(NPU_MEMORY)
                    || source.equals(NPU_MEMORY) && target.equals(MemoryDevice.CPU);
        }

        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target) {
            assertTrue(canCopy(source, target), source + " -> " + target);
            Object data = tensor.data();
            Object copy = Array.newInstance(data.getClass().getComponentType(), Array.getLength(data));
            System.arraycopy(data, 0, copy, 0, Array.getLength(data));
            Tensor t = Tensor.of(tensor.type(), tensor.shape(), copy);
            if (target.equals(NPU_MEMORY)) {
                toDevice.incrementAndGet();
                onDevice.add(t);
            } else {
                toHost.incrementAndGet();
                onHost.add(t);
            }
            return t;
        }
    }

    private static CountingEpFactory npuFactory(List<FakeEp> eps, DataTransfer transfer, String... ops) {
        List<String> wanted = List.of(ops);
        return new CountingEpFactory("NpuEP", () -> {
            FakeEp ep = new FakeEp("NpuEP", (g, s) -> g.nodes().stream().filter(n -> wanted.contains(n.opType()))
                    .forEach(s::addSingleNode)).memory(NPU_MEMORY);
            eps.add(ep);
            return ep;
        }).onlyType(HardwareDeviceType.NPU).dataTransfer(transfer);
    }

    private static RuntimeEnvironment environment(CountingEpFactory npu) {
        return new RuntimeEnvironment(Map.of(), List.of(NPU, TestDevices.CPU),
                List.of(new CpuEpFactory(), npu));
    }

    private static final SessionOptions PREFER_NPU =
            new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU);

    @Test
    void inputsAreCopiedIntoTheEpsMemoryAndOutputsBack() {
        CountingTransfer transfer = new CountingTransfer();
        List<FakeEp> eps = Collections.synchronizedList(new java.util.ArrayList<>());
        try (RuntimeEnvironment env = environment(npuFactory(eps, transfer, "Mul"));
             Session s = env.createSession(TestModels.mul().bytes(), PREFER_NPU)) {
            assertEquals(List.of("NpuEP"), s.assignment().stream().map(NodeAssignment::ep).toList());
            Map<String, Tensor> in = feeds();
            for (int run = 1; run <= 2; run++) {
                Tensor out = s.run(in).get("out");
                assertArrayEquals(new float[] {2, -4, 6, 4, 2.5f, -18}, out.floats());
                assertEquals(2 * run, transfer.toDevice.get(), "x and y go to the NPU");
                assertEquals(run, transfer.toHost.get(), "out comes back");
                assertTrue(transfer.onHost.contains(out), "the caller gets the copy in host memory");
            }
            List<Tensor> seen = List.copyOf(eps.get(0).inputsSeen);
            assertEquals(4, seen.size());
            for (Tensor t : seen) {
                assertTrue(transfer.onDevice.contains(t), "the kernel read a tensor that is not in its memory");
                assertNotSame(in.get("x"), t);
            }
            assertArrayEquals(X, in.get("x").floats(), "the caller's input is untouched");
        }
    }

    @Test
    void valuesCrossingBetweenTheCpuEpAndTheEpAreCopiedBothWays() {
        CountingTransfer transfer = new CountingTransfer();
        List<FakeEp> eps = Collections.synchronizedList(new java.util.ArrayList<>());
        try (RuntimeEnvironment env = environment(npuFactory(eps, transfer, "Mul"));
             Session s = env.createSession(TestModels.addMulAdd().bytes(), PREFER_NPU)) {
            assertEquals(List.of("CPUExecutionProvider", "NpuEP", "CPUExecutionProvider"),
                    s.assignment().stream().map(NodeAssignment::ep).toList());
            assertArrayEquals(TestModels.addMulAddExpected(X, Y), s.run(feeds()).get("out").floats());
            assertEquals(2, transfer.toDevice.get(), "s and y go to the NPU");
            assertEquals(1, transfer.toHost.get(), "p comes back for add_1");
            for (Tensor t : List.copyOf(eps.get(0).inputsSeen)) {
                assertTrue(transfer.onDevice.contains(t), "the kernel read a tensor that is not in its memory");
            }
        }
    }

    @Test
    void withoutADataTransferSessionCreationFailsClearly() {
        for (DataTransfer transfer : new DataTransfer[] {null, new CountingTransfer() {
            @Override
            public boolean canCopy(MemoryDevice source, MemoryDevice target) {
                return false;
            }
        } }) {
            List<FakeEp> eps = Collections.synchronizedList(new java.util.ArrayList<>());
            CountingEpFactory npu = npuFactory(eps, transfer, "Mul");
            try (RuntimeEnvironment env = environment(npu)) {
                OrtexException e = assertThrows(OrtexException.class,
                        () -> env.createSession(TestModels.addMulAdd().bytes(), PREFER_NPU));
                assertTrue(e.getMessage().contains("copy") && e.getMessage().contains("NPU")
                        && e.getMessage().contains("CPU"), e.getMessage());
                assertEquals(1, npu.created.get());
                assertEquals(1, npu.released.get(), "the EP of the failed session was released");
                assertEquals(List.of(), env.libraries().stream().filter(l -> !l.endsWith("[]")).toList());
            }
        }
    }
}
