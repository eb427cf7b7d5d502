package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.NodeAssignment;
import io.ortex.api.NotImplementedException;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Selection end to end: an environment with an NPU, a discrete NVIDIA GPU, an integrated GPU and the CPU, fake EPs
 * for the NPU and the GPUs beside the CPU EP; sessions created by policy, explicit EPs or a delegate, and run.
 */
class EpSelectionTest {
    private static final List<HardwareDevice> ALL = List.of(EpSelectorTest.NPU, EpSelectorTest.DGPU,
            EpSelectorTest.IGPU, TestDevices.CPU);
    private static final float[] X = {1, -2, 3, -4, 5, -6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};

    private final CountingEpFactory npu = new CountingEpFactory("NpuEP", () -> claiming("NpuEP", "Mul"))
            .onlyType(HardwareDeviceType.NPU).vendor("Qualcomm", 0x17cb)
            .deviceOptions(Map.of("run_really_fast", "true", "mode", "fast"));
    private final CountingEpFactory gpu = new CountingEpFactory("GpuEP", () -> claiming("GpuEP", "Mul", "Relu"))
            .onlyType(HardwareDeviceType.GPU).vendor("NVIDIA", 0x10de);

    private static FakeEp claiming(String name, String... ops) {
        List<String> wanted = List.of(ops);
        return new FakeEp(name, (g, s) -> g.nodes().stream().filter(n -> wanted.contains(n.opType()))
                .forEach(s::addSingleNode));
    }

    private RuntimeEnvironment newEnvironment(List<HardwareDevice> hardware) {
        return new RuntimeEnvironment(Map.of(), hardware, List.of(new CpuEpFactory(), npu, gpu));
    }

    private static Map<String, Tensor> feeds() {
        return Map.of("x", Tensor.ofFloats(X, 2, 3), "y", Tensor.ofFloats(Y, 2, 3));
    }

    private static void checkRun(Session s) {
        assertArrayEquals(TestModels.addMulReluExpected(X, Y), s.run(feeds()).get("out").floats());
    }

    private static List<String> eps(Session s) {
        return s.assignment().stream().map(NodeAssignment::ep).toList();
    }

    @Test
    void preferNpuRunsMulOnTheNpuAndTheRestOnTheCpu() {
        try (RuntimeEnvironment env = newEnvironment(ALL);
             Session s = env.createSession(TestModels.addMulRelu().bytes(),
                     new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
            assertEquals(List.of("NpuEP", "CPUExecutionProvider"), s.executionProviders());
            assertEquals(List.of("CPUExecutionProvider", "NpuEP", "CPUExecutionProvider"), eps(s));
            checkRun(s);
            assertEquals(List.of(EpSelectorTest.NPU), npu.lastDevices.stream().map(SupportedDevice::device).toList());
            assertEquals("fast", npu.lastConfig.get("ep.npuep.mode"));
            assertEquals(0, gpu.created.get());
        }
        assertEquals(npu.created.get(), npu.released.get());
    }

    @Test
    void preferNpuWithoutAnNpuUsesTheCpuEpAndNotTheGpu() {
        try (RuntimeEnvironment env = newEnvironment(List.of(EpSelectorTest.DGPU, TestDevices.CPU));
             Session s = env.createSession(TestModels.addMulRelu().bytes(),
                     new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.MIN_OVERALL_POWER))) {
            assertEquals(List.of("CPUExecutionProvider"), s.executionProviders());
            checkRun(s);
            assertEquals(0, gpu.created.get());
            assertEquals(0, npu.created.get());
        }
    }

    @Test
    void preferGpuTakesTheDiscreteGpuOnly() {
        try (RuntimeEnvironment env = newEnvironment(ALL);
             Session s = env.createSession(TestModels.addMulRelu().bytes(),
                     new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_GPU))) {
            assertEquals(List.of("GpuEP", "CPUExecutionProvider"), s.executionProviders());
            assertEquals(List.of("CPUExecutionProvider", "GpuEP", "GpuEP"), eps(s));
            assertEquals(List.of(EpSelectorTest.DGPU), gpu.lastDevices.stream().map(SupportedDevice::device).toList());
            checkRun(s);
        }
    }

    @Test
    void withoutTheCpuFallbackANodeOnlyTheCpuEpSupportsFailsCreationNamingIt() {
        try (RuntimeEnvironment env = newEnvironment(ALL)) {
            SessionOptions o = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU)
                    .config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1");
            NotImplementedException e = assertThrows(NotImplementedException.class,
                    () -> env.createSession(TestModels.addMulRelu().bytes(), o));
            assertTrue(e.getMessage().contains("'add'") && e.getMessage().contains("NpuEP")
                    && !e.getMessage().contains("CPUExecutionProvider"), e.getMessage());
            assertEquals(1, npu.created.get());
            assertEquals(1, npu.released.get(), "the EP created for the failed session was released");
            try (Session mulOnly = env.createSession(TestModels.mul().bytes(), o)) {
                assertEquals(List.of("NpuEP"), mulOnly.executionProviders());
                assertArrayEquals(new float[] {2, -4, 6, 4, 2.5f, -18},
                        mulOnly.run(feeds()).get("out").floats());
            }
        }
    }

    @Test
    void explicitEpOptionsReachCreateEpOverTheDeviceDefaults() {
        try (RuntimeEnvironment env = newEnvironment(ALL)) {
            List<EpDevice> npuDevices = env.epDevices().stream().filter(d -> d.epName().equals("NpuEP")).toList();
            SessionOptions o = new SessionOptions().config("session.user_key", "u")
                    .selectionPolicy(ExecutionProviderDevicePolicy.PREFER_GPU)
                    .appendExecutionProvider(npuDevices, Map.of("run_really_fast", "false", "extra", "1"));
            try (Session s = env.createSession(TestModels.addMulRelu().bytes(), o)) {
                assertEquals(List.of("NpuEP", "CPUExecutionProvider"), s.executionProviders(),
                        "the policy is ignored when EPs were appended");
                checkRun(s);
            }
            Map<String, String> config = npu.lastConfig;
            assertEquals("false", config.get("ep.npuep.run_really_fast"));
            assertEquals("fast", config.get("ep.npuep.mode"));
            assertEquals("1", config.get("ep.npuep.extra"));
            assertEquals("u", config.get("session.user_key"));
            assertThrows(UnsupportedOperationException.class, () -> config.put("ep.npuep.extra", "2"),
                    "an EP cannot change the config the next EP sees");
            assertEquals(0, gpu.created.get());

            SessionOptions twice = new SessionOptions().appendExecutionProvider(npuDevices, Map.of())
                    .appendExecutionProvider(npuDevices, Map.of());
            OrtexException e = assertThrows(OrtexException.class,
                    () -> env.createSession(TestModels.addMulRelu().bytes(), twice));
            assertTrue(e.getMessage().contains("NpuEP"), e.getMessage());
        }
    }

    @Test
    void aDelegateSeesTheModelMetadataAndItsChoiceRuns() {
        byte[] model = TestModels.addMulRelu().proto().toBuilder().setProducerVersion("9.8")
                .setDomain("ai.tests").setModelVersion(7).setDocString("a doc")
                .addMetadataProps(StringStringEntryProto.newBuilder().setKey("author").setValue("me"))
                .build().toByteArray();
        AtomicReference<Map<String, String>> seen = new AtomicReference<>();
        AtomicReference<List<EpDevice>> offered = new AtomicReference<>();
        try (RuntimeEnvironment env = newEnvironment(ALL);
             Session s = env.createSession(model, new SessionOptions().selectionDelegate((devices, meta, rt, max) -> {
                 seen.set(meta);
                 offered.set(devices);
                 return List.of(devices.get(0), devices.get(devices.size() - 1));
             }))) {
            assertEquals(Map.of("producer_name", "ortex-tests", "producer_version", "9.8", "domain", "ai.tests",
                    "model_version", "7", "doc_string", "a doc", "graph_name", "test", "author", "me"), seen.get());
            assertEquals(List.of("NpuEP", "GpuEP", "GpuEP", "CPUExecutionProvider"),
                    offered.get().stream().map(EpDevice::epName).toList());
            assertEquals(List.of("NpuEP", "CPUExecutionProvider"), s.executionProviders());
            checkRun(s);
        }
    }

    @Test
    void aFailingDelegateFailsCreationAndCreatesNoEp() {
        try (RuntimeEnvironment env = newEnvironment(ALL)) {
            OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(
                    TestModels.addMulRelu().bytes(), new SessionOptions().selectionDelegate((d, m, r, max) -> {
                        throw new IllegalArgumentException("boom");
                    })));
            assertEquals("EP selection delegate failed: boom", e.getMessage());
            OrtexException none = assertThrows(OrtexException.class, () -> env.createSession(
                    TestModels.addMulRelu().bytes(), new SessionOptions().selectionDelegate((d, m, r,
                            max) -> List.of())));
            assertTrue(none.getMessage().contains("did not select anything"), none.getMessage());
            assertEquals(0, npu.created.get() + gpu.created.get());
            assertEquals(List.of(), env.libraries().stream().filter(l -> !l.endsWith("[]")).toList(),
                    "no lease is left behind");
        }
    }
}
