package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.EpSelectionDelegate;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.ErrorCode;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses a session's EPs with ONNX Runtime's rules: explicitly appended EP devices, or a selection policy, or a
 * selection delegate; then the CPU EP as fallback, also after a delegate that left it out, unless
 * {@code session.disable_cpu_ep_fallback=1}. The chosen
 * devices are folded into one EP per EP name, in order of first appearance, which is the partitioning priority.
 */
final class EpSelector {
    /** The most devices a delegate may select. */
    static final int MAX_DELEGATE_SELECTIONS = 8;

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.selection");

    /**
     * An EP chosen for the session with the devices it was chosen for.
     *
     * @param epName the EP name
     * @param devices its devices, in order
     */
    record Choice(String epName, List<EpDevice> devices) {
    }

    /**
     * The outcome of selection.
     *
     * @param choices the EPs in priority order
     * @param config the session configuration with the EP options added ({@code ep.<name>.<key>})
     */
    record Selection(List<Choice> choices, Map<String, String> config) {
    }

    private final String cpuEp;
    private final ToIntFunction<String> vendorIdOfEp;

    /**
     * Creates a selector.
     *
     * @param cpuEp the name of the built-in CPU EP
     * @param vendorIdOfEp the PCI vendor id of each EP's factory, by EP name
     */
    EpSelector(String cpuEp, ToIntFunction<String> vendorIdOfEp) {
        this.cpuEp = cpuEp;
        this.vendorIdOfEp = vendorIdOfEp;
    }

    /**
     * Selects EPs.
     *
     * @param options the session options
     * @param available the EP devices that can be selected now
     * @param modelMetadata the model's metadata, for a delegate
     * @return the selection
     */
    Selection select(SessionOptions options, List<EpDevice> available, Map<String, String> modelMetadata) {
        Map<String, String> config = new LinkedHashMap<>(options.config());
        boolean noFallback = "1".equals(config.get(SessionOptions.DISABLE_CPU_EP_FALLBACK));
        List<EpDevice> picked = new ArrayList<>();
        if (!options.appendedExecutionProviders().isEmpty()) {
            if (options.selectionPolicy() != null || options.selectionDelegate() != null) {
                LOG.info("EPs were appended explicitly; the selection policy is ignored");
            }
            List<String> seen = new ArrayList<>();
            for (SessionOptions.EpAppend append : options.appendedExecutionProviders()) {
                String ep = append.devices().get(0).epName();
                if (seen.contains(ep)) {
                    throw new InvalidArgumentException("EP " + ep + " was appended twice to the session options");
                }
                seen.add(ep);
                for (EpDevice d : append.devices()) {
                    if (!available.contains(d)) {
                        throw new EpUnavailableException("EP device " + d + " is no longer available");
                    }
                    picked.add(d);
                    for (Map.Entry<String, String> e : d.epOptions().entrySet()) {
                        config.putIfAbsent(optionKey(ep, e.getKey()), e.getValue());
                    }
                }
                for (Map.Entry<String, String> e : append.options().entrySet()) {
                    config.put(optionKey(ep, e.getKey()), e.getValue());
                }
            }
            if (!noFallback && !seen.contains(cpuEp)) {
                available.stream().filter(d -> d.epName().equals(cpuEp)).findFirst().ifPresent(picked::add);
            }
            return new Selection(fold(picked), config);
        }
        if (options.selectionDelegate() != null) {
            picked.addAll(delegate(options.selectionDelegate(), ordered(available), modelMetadata));
        } else if (options.selectionPolicy() != null) {
            picked.addAll(policy(options.selectionPolicy(), ordered(available)));
        } else {
            available.stream().filter(d -> d.epName().equals(cpuEp)).findFirst().ifPresent(picked::add);
            if (picked.isEmpty()) {
                throw new EpUnavailableException("the CPU EP (" + cpuEp + ") is not available");
            }
        }
        if (picked.isEmpty()) {
            throw new OrtexException(ErrorCode.FAIL,
                    "no execution providers selected; check the device policy and the available devices");
        }
        if (!noFallback && picked.stream().noneMatch(this::isCpuEp)) {
            // ONNX Runtime adds its CPU EP at session initialization when selection (a delegate) left it out
            available.stream().filter(this::isCpuEp).findFirst().ifPresent(picked::add);
        }
        for (EpDevice d : picked) {
            for (Map.Entry<String, String> e : d.epOptions().entrySet()) {
                config.putIfAbsent(optionKey(d.epName(), e.getKey()), e.getValue());
            }
        }
        if (noFallback && picked.size() > 1 && isCpuEp(picked.get(picked.size() - 1))) {
            picked.remove(picked.size() - 1);
        }
        return new Selection(fold(picked), config);
    }

    /** The session config key of an EP option. */
    static String optionKey(String epName, String key) {
        return "ep." + epName.toLowerCase(Locale.ROOT) + "." + key;
    }

    /** Orders EP devices as the policies see them: NPU, GPU, CPU; discrete GPUs; vendor match; built-in CPU last. */
    List<EpDevice> ordered(List<EpDevice> devices) {
        List<EpDevice> sorted = new ArrayList<>(devices);
        sorted.sort(Comparator.<EpDevice>comparingInt(d -> typeRank(d.device().type()))
                .thenComparingInt(d -> d.device().type() == HardwareDeviceType.GPU
                        && "1".equals(d.device().metadata().get("Discrete")) ? 0 : 1)
                .thenComparingInt(d -> vendorMatch(d) ? 0 : 1)
                .thenComparingInt(d -> isCpuEp(d) ? 1 : 0)
                .thenComparing(EpDevice::epName));
        return sorted;
    }

    private static int typeRank(HardwareDeviceType t) {
        switch (t) {
            case NPU: return 0;
            case GPU: return 1;
            default: return 2;
        }
    }

    private boolean vendorMatch(EpDevice d) {
        int epVendorId = vendorIdOfEp.applyAsInt(d.epName());
        return (epVendorId != 0 && epVendorId == d.device().vendorId())
                || (!d.epVendor().isEmpty() && d.epVendor().equals(d.device().vendor()));
    }

    private boolean isCpuEp(EpDevice d) {
        return d.device().type() == HardwareDeviceType.CPU && d.epName().equals(cpuEp);
    }

    private List<EpDevice> policy(ExecutionProviderDevicePolicy policy, List<EpDevice> sorted) {
        List<EpDevice> picked = new ArrayList<>();
        switch (policy) {
            case PREFER_NPU: case MAX_EFFICIENCY: case MIN_OVERALL_POWER:
                if (!sorted.isEmpty() && sorted.get(0).device().type() == HardwareDeviceType.NPU) {
                    picked.add(sorted.get(0));
                }
                break;
            case PREFER_GPU: case MAX_PERFORMANCE:
                sorted.stream().filter(d -> d.device().type() == HardwareDeviceType.GPU).findFirst()
                        .ifPresent(picked::add);
                break;
            default:
                break;
        }
        preferCpu(sorted, picked);
        return picked;
    }

    /** Adds the first CPU device, and the built-in CPU EP after it when that first one is a plugin CPU EP. */
    private void preferCpu(List<EpDevice> sorted, List<EpDevice> picked) {
        EpDevice cpu = sorted.stream().filter(d -> d.device().type() == HardwareDeviceType.CPU).findFirst()
                .orElseThrow(() -> new EpUnavailableException("no CPU-based execution provider was found"));
        picked.add(cpu);
        EpDevice last = sorted.get(sorted.size() - 1);
        if (!isCpuEp(cpu) && isCpuEp(last)) {
            picked.add(last);
        }
    }

    private List<EpDevice> delegate(EpSelectionDelegate delegate, List<EpDevice> sorted,
                                    Map<String, String> modelMetadata) {
        List<EpDevice> chosen;
        try {
            chosen = delegate.select(List.copyOf(sorted), Map.copyOf(modelMetadata), Map.of(),
                    MAX_DELEGATE_SELECTIONS);
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "EP selection delegate failed: " + e.getMessage(), e);
        }
        if (chosen == null || chosen.isEmpty()) {
            throw new OrtexException(ErrorCode.FAIL, "EP selection delegate did not select anything");
        }
        if (chosen.size() > MAX_DELEGATE_SELECTIONS) {
            throw new OrtexException(ErrorCode.FAIL, "EP selection delegate selected too many EP devices ("
                    + chosen.size() + "); the most is " + MAX_DELEGATE_SELECTIONS);
        }
        for (EpDevice d : chosen) {
            if (d == null || !sorted.contains(d)) {
                throw new InvalidArgumentException("EP selection delegate selected " + d
                        + ", which is not one of the devices it was offered");
            }
        }
        return chosen;
    }

    /** One choice per EP name, in order of first appearance, with all of its devices. */
    private static List<Choice> fold(List<EpDevice> picked) {
        Map<String, List<EpDevice>> byEp = new LinkedHashMap<>();
        for (EpDevice d : picked) {
            List<EpDevice> list = byEp.computeIfAbsent(d.epName(), k -> new ArrayList<>());
            if (!list.contains(d)) {
                list.add(d);
            }
        }
        List<Choice> out = new ArrayList<>();
        byEp.forEach((ep, devices) -> out.add(new Choice(ep, List.copyOf(devices))));
        return out;
    }
}
