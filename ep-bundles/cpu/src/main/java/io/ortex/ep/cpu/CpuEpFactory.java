package io.ortex.ep.cpu;

import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.linalg.VectorSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/**
 * The factory of the CPU execution provider: it supports every real CPU device and creates one
 * {@link CpuExecutionProvider} per session. Thread safe; the operator table is built once per factory. In an OSGi
 * framework it is a Declarative Services component registered as an {@link EpFactory} service with the properties
 * the runtime reads ({@code ep.name}, {@code ep.vendor}, {@code ep.device_types}); on the module path it is found
 * through {@code provides}.
 */
@Component(service = EpFactory.class, property = {
    "ep.name=" + CpuEpFactory.NAME,
    "ep.vendor=" + CpuEpFactory.VENDOR,
    "ep.device_types=CPU"
})
public final class CpuEpFactory implements EpFactory {
    /** The EP name, as in ONNX Runtime. */
    public static final String NAME = "CPUExecutionProvider";
    /** The EP vendor. */
    public static final String VENDOR = "Ortex";
    /** The EP version (SemVer). */
    public static final String VERSION = "0.1.0";

    /** EP metadata key: which kernels run, Vector API or plain Java ({@link VectorSupport#description()}). */
    public static final String KERNELS_METADATA = "kernels";

    private final OpRegistry registry = CpuOps.registry();

    /** Creates the factory; called by {@link java.util.ServiceLoader} or the OSGi runtime. */
    public CpuEpFactory() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String vendor() {
        return VENDOR;
    }

    @Override
    public int vendorId() {
        return 0;
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware,
                                                  Map<String, String> environmentConfig) {
        List<SupportedDevice> out = new ArrayList<>();
        for (HardwareDevice d : hardware) {
            if (d.type() == HardwareDeviceType.CPU && !d.isVirtual()) {
                out.add(new SupportedDevice(d, Map.of(KERNELS_METADATA, VectorSupport.description()), Map.of()));
            }
        }
        return out;
    }

    /** {@inheritDoc} The CPU EP runs on real CPUs only; a GPU, an NPU or a virtual device is one it cannot use. */
    @Override
    public DeviceIncompatibility deviceIncompatibility(HardwareDevice device) {
        if (device.type() == HardwareDeviceType.CPU && !device.isVirtual()) {
            return DeviceIncompatibility.COMPATIBLE;
        }
        return new DeviceIncompatibility(DeviceIncompatibility.DEVICE_INCOMPATIBLE, 0, NAME + " runs on "
                + "this machine's CPUs only, not on " + (device.isVirtual() ? "a virtual " : "a ") + device.type());
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        return new CpuExecutionProvider(NAME, registry, CpuExecutionProvider.fusionsWanted(sessionConfig));
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
        // the CPU EP holds nothing beyond its kernels, which the session closes
    }

    /**
     * Gets the operator table, for tools that report coverage.
     *
     * @return the registry
     */
    public OpRegistry registry() {
        return registry;
    }
}
