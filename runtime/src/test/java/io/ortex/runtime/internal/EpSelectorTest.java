package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.EpSelectionDelegate;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** ONNX Runtime's EP selection rules: device order, the seven policies, explicit EPs, delegates, CPU fallback. */
class EpSelectorTest {
    static final HardwareDevice NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x17cb, 0x1, "Qualcomm", Map.of());
    static final HardwareDevice DGPU = new HardwareDevice(HardwareDeviceType.GPU, 0x10de, 0x2684, "NVIDIA",
            Map.of("Discrete", "1"));
    static final HardwareDevice IGPU = new HardwareDevice(HardwareDeviceType.GPU, 0x8086, 0x46a6, "Intel", Map.of());

    static final String CPU_EP = RuntimeEnvironment.CPU_EP;
    static final EpDevice CPU_EP_DEVICE = device(CPU_EP, "Ortex", CPU, Map.of());
    static final EpDevice NPU_EP = device("NpuEP", "Qualcomm", NPU, Map.of("run_really_fast", "true", "mode", "fast"));
    static final EpDevice GPU_EP_DISCRETE = device("GpuEP", "Acme", DGPU, Map.of());
    static final EpDevice GPU_EP_INTEGRATED = device("GpuEP", "Acme", IGPU, Map.of());

    private static final Map<String, Integer> VENDOR_IDS = Map.of("ZCudaEP", 0x10de, "VendorCpuEP", 0x8086);
    private final EpSelector selector = new EpSelector(CPU_EP, ep -> VENDOR_IDS.getOrDefault(ep, 0));

    static EpDevice device(String ep, String vendor, HardwareDevice hw, Map<String, String> options) {
        return new EpDevice(ep, vendor, Map.of("version", "1.0.0"), options, hw);
    }

    /** Describes a selection as {@code EP[device types]} entries, in priority order. */
    private static List<String> describe(EpSelector.Selection s) {
        List<String> out = new ArrayList<>();
        for (EpSelector.Choice c : s.choices()) {
            out.add(c.epName() + c.devices().stream().map(d -> d.device().type() + (d.device().type()
                    == HardwareDeviceType.GPU && d.device().metadata().containsKey("Discrete") ? "d" : "")).toList());
        }
        return out;
    }

    private EpSelector.Selection select(SessionOptions options, List<EpDevice> available) {
        return selector.select(options, available, Map.of("producer_name", "tests"));
    }

    private static SessionOptions policy(ExecutionProviderDevicePolicy p) {
        return new SessionOptions().selectionPolicy(p);
    }

    @Test
    void devicesAreOrderedByTypeDiscretenessVendorMatchCpuEpLastThenName() {
        EpDevice cudaOnDgpu = device("ZCudaEP", "NVIDIA Corporation", DGPU, Map.of());
        EpDevice xeOnIgpu = device("XeEP", "Intel", IGPU, Map.of());
        EpDevice alphaCpu = device("AlphaCpuEP", "Contoso", CPU, Map.of());
        EpDevice zetaCpu = device("ZetaCpuEP", "Contoso", CPU, Map.of());
        EpDevice vendorCpu = device("VendorCpuEP", "Contoso", CPU, Map.of());
        List<EpDevice> expected = List.of(NPU_EP, cudaOnDgpu, GPU_EP_DISCRETE, xeOnIgpu, GPU_EP_INTEGRATED,
                vendorCpu, alphaCpu, zetaCpu, CPU_EP_DEVICE);
        Random random = new Random(42);
        for (int i = 0; i < 20; i++) {
            List<EpDevice> shuffled = new ArrayList<>(expected);
            Collections.shuffle(shuffled, random);
            assertEquals(expected, selector.ordered(shuffled), "from " + shuffled);
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionProviderDevicePolicy.class)
    void everyPolicyWithAndWithoutAnNpuOrAGpu(ExecutionProviderDevicePolicy p) {
        List<EpDevice> all = List.of(CPU_EP_DEVICE, GPU_EP_INTEGRATED, NPU_EP, GPU_EP_DISCRETE);
        List<EpDevice> cpuOnly = List.of(CPU_EP_DEVICE);
        List<EpDevice> gpuAndCpu = List.of(CPU_EP_DEVICE, GPU_EP_INTEGRATED, GPU_EP_DISCRETE);
        List<EpDevice> npuAndCpu = List.of(CPU_EP_DEVICE, NPU_EP);
        List<String> cpu = List.of("CPUExecutionProvider[CPU]");
        List<String> npu = List.of("NpuEP[NPU]", "CPUExecutionProvider[CPU]");
        List<String> gpu = List.of("GpuEP[GPUd]", "CPUExecutionProvider[CPU]");
        boolean wantsNpu = p == ExecutionProviderDevicePolicy.PREFER_NPU
                || p == ExecutionProviderDevicePolicy.MAX_EFFICIENCY
                || p == ExecutionProviderDevicePolicy.MIN_OVERALL_POWER;
        boolean wantsGpu = p == ExecutionProviderDevicePolicy.PREFER_GPU
                || p == ExecutionProviderDevicePolicy.MAX_PERFORMANCE;
        assertEquals(wantsNpu ? npu : wantsGpu ? gpu : cpu, describe(select(policy(p), all)), "all devices");
        assertEquals(cpu, describe(select(policy(p), cpuOnly)), "CPU only");
        assertEquals(wantsGpu ? gpu : cpu, describe(select(policy(p), gpuAndCpu)),
                "no NPU: the NPU policies behave like PREFER_CPU and do not take a GPU");
        assertEquals(wantsNpu ? npu : cpu, describe(select(policy(p), npuAndCpu)), "no GPU");
    }

    @Test
    void aPluginCpuEpOutranksTheBuiltInCpuEpWhichIsAddedAsItsFallback() {
        EpDevice pluginCpu = device("ZetaCpuEP", "Contoso", CPU, Map.of());
        List<EpDevice> available = List.of(CPU_EP_DEVICE, pluginCpu, NPU_EP);
        assertEquals(List.of("ZetaCpuEP[CPU]", "CPUExecutionProvider[CPU]"),
                describe(select(policy(ExecutionProviderDevicePolicy.PREFER_CPU), available)));
        assertEquals(List.of("NpuEP[NPU]", "ZetaCpuEP[CPU]", "CPUExecutionProvider[CPU]"),
                describe(select(policy(ExecutionProviderDevicePolicy.PREFER_NPU), available)));
    }

    @Test
    void withoutAnyCpuDeviceAPolicyFails() {
        OrtexException e = assertThrows(OrtexException.class,
                () -> select(policy(ExecutionProviderDevicePolicy.PREFER_NPU), List.of(NPU_EP)));
        assertTrue(e.getMessage().contains("CPU"), e.getMessage());
    }

    @Test
    void disablingTheCpuFallbackRemovesTheBuiltInCpuEpAddedAfterAnotherEp() {
        List<EpDevice> all = List.of(CPU_EP_DEVICE, GPU_EP_INTEGRATED, NPU_EP, GPU_EP_DISCRETE);
        SessionOptions o = policy(ExecutionProviderDevicePolicy.PREFER_NPU)
                .config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1");
        assertEquals(List.of("NpuEP[NPU]"), describe(select(o, all)));
        SessionOptions gpu = policy(ExecutionProviderDevicePolicy.MAX_PERFORMANCE)
                .config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1");
        assertEquals(List.of("GpuEP[GPUd]"), describe(select(gpu, all)));
        SessionOptions cpu = policy(ExecutionProviderDevicePolicy.PREFER_CPU)
                .config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1");
        assertEquals(List.of("CPUExecutionProvider[CPU]"), describe(select(cpu, all)),
                "the CPU EP picked as the first choice is not a fallback and stays");
    }

    @Test
    void policyDeviceOptionsBecomeConfigEntriesUnlessTheUserSetThem() {
        SessionOptions o = policy(ExecutionProviderDevicePolicy.PREFER_NPU).config("ep.npuep.mode", "user");
        Map<String, String> config = select(o, List.of(CPU_EP_DEVICE, NPU_EP)).config();
        assertEquals("user", config.get("ep.npuep.mode"));
        assertEquals("true", config.get("ep.npuep.run_really_fast"));
    }

    @Test
    void explicitOptionsBecomeLowerCaseConfigEntriesOverTheDeviceDefaults() {
        SessionOptions o = new SessionOptions().config("session.some_key", "1")
                .appendExecutionProvider(List.of(NPU_EP), Map.of("run_really_fast", "false", "extra", "1"));
        EpSelector.Selection s = select(o, List.of(CPU_EP_DEVICE, NPU_EP));
        assertEquals(List.of("NpuEP[NPU]", "CPUExecutionProvider[CPU]"), describe(s));
        assertEquals(Map.of("session.some_key", "1", "ep.npuep.run_really_fast", "false", "ep.npuep.mode", "fast",
                "ep.npuep.extra", "1"), s.config());
    }

    @Test
    void explicitEpsIgnoreThePolicyAndTheDelegateAndKeepTheirOrder() {
        List<EpDevice> all = List.of(CPU_EP_DEVICE, GPU_EP_INTEGRATED, NPU_EP, GPU_EP_DISCRETE);
        SessionOptions o = new SessionOptions().appendExecutionProvider(List.of(GPU_EP_INTEGRATED), Map.of())
                .appendExecutionProvider(List.of(NPU_EP), Map.of())
                .selectionPolicy(ExecutionProviderDevicePolicy.PREFER_CPU);
        assertEquals(List.of("GpuEP[GPU]", "NpuEP[NPU]", "CPUExecutionProvider[CPU]"), describe(select(o, all)));
        o.selectionDelegate((devices, model, runtime, max) -> {
            throw new IllegalStateException("the delegate must not be called");
        });
        assertEquals(List.of("GpuEP[GPU]", "NpuEP[NPU]", "CPUExecutionProvider[CPU]"), describe(select(o, all)));
        SessionOptions both = new SessionOptions()
                .appendExecutionProvider(List.of(GPU_EP_DISCRETE, GPU_EP_INTEGRATED), Map.of());
        assertEquals(List.of("GpuEP[GPUd, GPU]", "CPUExecutionProvider[CPU]"), describe(select(both, all)),
                "several devices of one EP make one EP instance");
        SessionOptions noFallback = new SessionOptions().appendExecutionProvider(List.of(NPU_EP), Map.of())
                .config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1");
        assertEquals(List.of("NpuEP[NPU]"), describe(select(noFallback, all)));
        SessionOptions cpuFirst = new SessionOptions().appendExecutionProvider(List.of(CPU_EP_DEVICE), Map.of())
                .appendExecutionProvider(List.of(NPU_EP), Map.of());
        assertEquals(List.of("CPUExecutionProvider[CPU]", "NpuEP[NPU]"), describe(select(cpuFirst, all)),
                "no second CPU EP is added");
    }

    @Test
    void theSameEpAppendedTwiceFails() {
        SessionOptions o = new SessionOptions().appendExecutionProvider(List.of(GPU_EP_DISCRETE), Map.of())
                .appendExecutionProvider(List.of(GPU_EP_INTEGRATED), Map.of());
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> select(o, List.of(CPU_EP_DEVICE, GPU_EP_DISCRETE, GPU_EP_INTEGRATED)));
        assertTrue(e.getMessage().contains("GpuEP") && e.getMessage().contains("twice"), e.getMessage());
    }

    @Test
    void devicesOfDifferentEpsInOneAppendFail() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> new SessionOptions().appendExecutionProvider(List.of(NPU_EP, GPU_EP_DISCRETE), Map.of()));
        assertTrue(e.getMessage().contains("NpuEP") && e.getMessage().contains("GpuEP"), e.getMessage());
        assertThrows(InvalidArgumentException.class,
                () -> new SessionOptions().appendExecutionProvider(List.of(), Map.of()));
    }

    @Test
    void anAppendedDeviceThatIsNoLongerAvailableFails() {
        SessionOptions o = new SessionOptions().appendExecutionProvider(List.of(NPU_EP), Map.of());
        EpUnavailableException e = assertThrows(EpUnavailableException.class,
                () -> select(o, List.of(CPU_EP_DEVICE)));
        assertTrue(e.getMessage().contains("NpuEP"), e.getMessage());
    }

    @Test
    void theDelegateSeesTheOrderedDevicesTheModelMetadataAndEightSlots() {
        List<EpDevice> available = List.of(CPU_EP_DEVICE, GPU_EP_INTEGRATED, NPU_EP, GPU_EP_DISCRETE);
        AtomicReference<List<EpDevice>> seen = new AtomicReference<>();
        AtomicReference<Map<String, String>> seenModel = new AtomicReference<>();
        AtomicReference<Map<String, String>> seenRuntime = new AtomicReference<>();
        AtomicReference<Integer> seenMax = new AtomicReference<>();
        EpSelectionDelegate firstAndLast = (devices, model, runtime, max) -> {
            seen.set(devices);
            seenModel.set(model);
            seenRuntime.set(runtime);
            seenMax.set(max);
            return List.of(devices.get(0), devices.get(devices.size() - 1));
        };
        EpSelector.Selection s = selector.select(new SessionOptions().selectionDelegate(firstAndLast), available,
                Map.of("producer_name", "tests", "graph_name", "g", "custom", "x"));
        assertEquals(selector.ordered(available), seen.get());
        assertEquals(Map.of("producer_name", "tests", "graph_name", "g", "custom", "x"), seenModel.get());
        assertEquals(Map.of(), seenRuntime.get());
        assertEquals(8, seenMax.get());
        assertEquals(List.of("NpuEP[NPU]", "CPUExecutionProvider[CPU]"), describe(s));
        assertEquals("fast", s.config().get("ep.npuep.mode"), "the selected devices' options are added");
    }

    @Test
    void theCpuFallbackFollowsWhatTheDelegateSelectedUnlessDisabled() {
        List<EpDevice> available = List.of(CPU_EP_DEVICE, NPU_EP);
        EpSelectionDelegate npuOnly = (devices, model, runtime, max) -> List.of(devices.get(0));
        assertEquals(List.of("NpuEP[NPU]", "CPUExecutionProvider[CPU]"),
                describe(select(new SessionOptions().selectionDelegate(npuOnly), available)));
        assertEquals(List.of("NpuEP[NPU]"), describe(select(new SessionOptions().selectionDelegate(npuOnly)
                .config(SessionOptions.DISABLE_CPU_EP_FALLBACK, "1"), available)));
    }

    @Test
    void aDelegateThatSelectsNothingFails() {
        List<EpDevice> available = List.of(CPU_EP_DEVICE, NPU_EP);
        OrtexException e = assertThrows(OrtexException.class, () -> select(new SessionOptions()
                .selectionDelegate((devices, model, runtime, max) -> List.of()), available));
        assertEquals("EP selection delegate did not select anything", e.getMessage());
        assertThrows(OrtexException.class, () -> select(new SessionOptions()
                .selectionDelegate((devices, model, runtime, max) -> null), available));
    }

    @Test
    void aDelegateThatThrowsFailsWithItsMessage() {
        OrtexException e = assertThrows(OrtexException.class, () -> select(new SessionOptions()
                .selectionDelegate((devices, model, runtime, max) -> {
                    throw new IllegalStateException("no suitable device");
                }), List.of(CPU_EP_DEVICE)));
        assertEquals("EP selection delegate failed: no suitable device", e.getMessage());
        assertTrue(e.getCause() instanceof IllegalStateException);
    }

    @Test
    void aDelegateThatSelectsTooManyOrAForeignDeviceFails() {
        List<EpDevice> available = List.of(CPU_EP_DEVICE, NPU_EP);
        OrtexException many = assertThrows(OrtexException.class, () -> select(new SessionOptions()
                .selectionDelegate((devices, model, runtime, max) -> Collections.nCopies(max + 1, devices.get(0))),
                available));
        assertTrue(many.getMessage().contains("too many") && many.getMessage().contains("9"), many.getMessage());
        OrtexException foreign = assertThrows(OrtexException.class, () -> select(new SessionOptions()
                .selectionDelegate((devices, model, runtime, max) -> List.of(GPU_EP_DISCRETE)), available));
        assertTrue(foreign.getMessage().contains("not one of the devices"), foreign.getMessage());
    }
}
