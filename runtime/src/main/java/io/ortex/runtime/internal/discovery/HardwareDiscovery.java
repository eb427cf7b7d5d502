package io.ortex.runtime.internal.discovery;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the hardware devices of one environment: NPUs ({@code class/accel}), GPUs ({@code class/drm}, or the PCI
 * bus when DRM shows none), exactly one CPU ({@code cpuinfo}), and the devices added by configuration
 * ({@link DiscoveryConfig}). The runtime creates one per environment and calls {@link #discover()} once.
 *
 * <p>Unlike ONNX Runtime, which drops every GPU when one card cannot be read, a device whose files cannot be read
 * is skipped with a warning naming its path, and the other devices are still reported. Not thread
 * safe; the result is immutable.
 */
public final class HardwareDiscovery {
    /** Metadata key of a PCI device's bus id, such as {@code 0000:65:00.0}. */
    public static final String PCI_BUS_ID = "pci_bus_id";
    /** Metadata key marking a discrete GPU ({@code "1"}); ONNX Runtime sets it for NVIDIA GPUs only. */
    public static final String DISCRETE = "Discrete";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.discovery");

    private final Map<String, String> config;
    private final Logger log;

    /**
     * Creates the discovery for an environment configuration.
     *
     * @param config the environment configuration; see {@link DiscoveryConfig} for the keys read
     */
    public HardwareDiscovery(Map<String, String> config) {
        this(config, LOG);
    }

    /**
     * Creates the discovery with its own logger, for tests.
     *
     * @param config the environment configuration
     * @param log where skipped and configured devices are reported
     */
    HardwareDiscovery(Map<String, String> config, Logger log) {
        this.config = Map.copyOf(Objects.requireNonNull(config, "config"));
        this.log = Objects.requireNonNull(log, "log");
    }

    /**
     * Finds the devices.
     *
     * @return the devices, NPUs first, then GPUs, then CPUs; by index within a type, discovered devices before
     *     configured ones (ordered by id); equal devices once
     * @throws InvalidArgumentException when a discovery key or a configured device is malformed; the message names
     *     the key
     */
    public List<HardwareDevice> discover() {
        Path sys = DiscoveryConfig.sysfsRoot(config);
        Path proc = DiscoveryConfig.procfsRoot(config);
        Map<String, HardwareDevice> configured = ConfiguredDevices.parse(config);

        List<HardwareDevice> devices = new ArrayList<>(new AccelNpuDiscovery(sys, log).discover());
        List<HardwareDevice> gpus = new DrmGpuDiscovery(sys, log).discover();
        if (gpus.isEmpty()) {
            gpus = new PciGpuDiscovery(sys, log).discover();
        }
        devices.addAll(gpus);
        devices.add(new CpuDiscovery(proc, log).discover());
        configured.forEach((id, device) -> {
            log.info("added configured device '{}': {}", id, device);
            devices.add(device);
        });
        devices.sort(Comparator.comparingInt(d -> rank(d.type())));
        Set<HardwareDevice> unique = new LinkedHashSet<>(devices);
        return List.copyOf(unique);
    }

    /** Orders device types as ONNX Runtime hands them to EP factories: NPU, GPU, CPU. */
    private static int rank(HardwareDeviceType type) {
        switch (type) {
            case NPU:
                return 0;
            case GPU:
                return 1;
            default:
                return 2;
        }
    }
}
