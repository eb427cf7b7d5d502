package io.ortex.ep.ort;

import ai.onnxruntime.OrtEpDevice;
import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.SupportedDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.osgi.service.component.annotations.Component;

/**
 * The factory of the ONNX Runtime EP, {@value #NAME}: partitions ONNX Runtime can run are handed to it and run with
 * its native kernels. Its devices are ONNX Runtime's own EP devices of the EPs built into the package (its CPU EP
 * here), with ONNX Runtime's vendor ({@value #VENDOR}) and metadata; its version is ONNX Runtime's. EP options
 * ({@code ep.ortexecutionprovider.<key>}) are listed in {@link OrtSettings}. Thread safe; ONNX Runtime is loaded when
 * the factory is first asked for its version or devices. In an OSGi framework it is a Declarative Services component
 * registered as an {@link EpFactory} service; ONNX Runtime's classes come from the bundle
 * {@code com.microsoft.onnxruntime}, so updating this bundle never loads ONNX Runtime's native library again.
 */
@Component(service = EpFactory.class, property = {
    "ep.name=" + OrtEpFactory.NAME,
    "ep.vendor=" + OrtEpFactory.VENDOR,
    "ep.device_types=CPU"
})
public final class OrtEpFactory implements EpFactory {
    /** The EP name. */
    public static final String NAME = "OrtExecutionProvider";
    /** The EP vendor, ONNX Runtime's. */
    public static final String VENDOR = "Microsoft";
    /** Microsoft's PCI vendor id. */
    public static final int VENDOR_ID = 0x1414;

    /** Creates the factory; called by {@link java.util.ServiceLoader} or the OSGi runtime. */
    public OrtEpFactory() {
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
        return VENDOR_ID;
    }

    /** The ONNX Runtime version, such as {@code 1.29.0}. */
    @Override
    public String version() {
        return OrtRuntime.version();
    }

    /**
     * Offers ONNX Runtime's EP devices of its built-in EPs; plugin-EP libraries registered through the bridge are
     * separate EP libraries with their own factories.
     */
    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware,
                                                  Map<String, String> environmentConfig) {
        Set<String> builtIn = OrtRuntime.builtInEps();
        List<SupportedDevice> out = new ArrayList<>();
        for (OrtEpDevice d : OrtRuntime.epDevices()) {
            if (builtIn.contains(d.getEpName())) {
                SupportedDevice s = OrtDevices.supported(d, hardware, Map.of());
                if (OrtDevices.offered(s, environmentConfig)) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    /**
     * Creates an EP for the selected devices.
     *
     * @throws InvalidArgumentException naming the option when an EP option is malformed or unknown
     */
    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        return create(NAME, devices, sessionConfig, false, SessionGuard.NONE);
    }

    /**
     * Creates an EP backed by ONNX Runtime for some of its EP devices; shared with the bridge's factories.
     *
     * @param epName the Ortex EP name
     * @param devices the selected devices
     * @param sessionConfig the session configuration
     * @param bridged true for a plugin EP of the bridge: unknown option keys are its own options, and its partitions
     *     are not saved as EPContext payloads
     * @param guard the guard of the plugin library the devices belong to
     * @return the EP
     */
    static OrtExecutionProvider create(String epName, List<SupportedDevice> devices, Map<String, String> sessionConfig,
                                       boolean bridged, SessionGuard guard) {
        if (devices.isEmpty()) {
            throw new InvalidArgumentException(epName + " needs at least one of its devices, none was selected");
        }
        OrtSettings settings = OrtSettings.read(epName, sessionConfig, bridged);
        List<List<OrtEpDevice>> ortDevices = OrtDevices.resolve(devices, OrtRuntime.epDevices());
        // ONNX Runtime cannot save an optimized model holding a plugin EP's compiled nodes: bridged EPs keep the
        // partition's own nodes in compiled models
        boolean writeOptimized = !bridged && "1".equals(sessionConfig.get(SessionOptions.EP_CONTEXT_ENABLE));
        SessionMaker maker = new SessionMaker(settings, ortDevices, guard, writeOptimized);
        return new OrtExecutionProvider(epName, maker, bridged ? null
                : CompatibilityInfo.ofThisMachine(OrtRuntime.version(), settings.epContextFormat()));
    }

    /** Closes the EP's ONNX Runtime sessions. */
    @Override
    public void releaseEp(ExecutionProvider ep) {
        if (ep instanceof OrtExecutionProvider o) {
            o.close();
        }
    }

    /**
     * Judges a partition compiled earlier ({@link CompatibilityInfo}): another ONNX Runtime version prefers
     * recompilation; another CPU, architecture or a foreign string is unsupported.
     */
    @Override
    public CompiledModelCompatibility validateCompiledModelCompatibility(List<HardwareDevice> devices,
                                                                        String compatibilityInfo) {
        CompatibilityInfo stored = CompatibilityInfo.decode(NAME, compatibilityInfo);
        String format = stored == null ? OrtSettings.DEFAULT_EP_CONTEXT_FORMAT : stored.format();
        return CompatibilityInfo.judge(CompatibilityInfo.ofThisMachine(OrtRuntime.version(), format), NAME,
                compatibilityInfo);
    }
}
