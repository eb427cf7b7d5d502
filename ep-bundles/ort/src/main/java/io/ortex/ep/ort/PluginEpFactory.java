package io.ortex.ep.ort;

import ai.onnxruntime.OrtEpDevice;
import io.ortex.api.HardwareDevice;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.SupportedDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Ortex factory of one EP that a native ONNX Runtime plugin-EP library added: its name and vendor are the plugin
 * EP's, its version the plugin's {@code version} metadata (ONNX Runtime's version when that is not SemVer), and its
 * devices ONNX Runtime's EP devices of that EP, with {@value #ORT_LIBRARY} naming the library. Its EPs run partitions
 * in ONNX Runtime sessions with the plugin's devices appended, so ONNX Runtime places on its CPU EP the nodes the
 * plugin does not take; options {@code ep.<lower-case EP name>.<key>} that are not ONNX Runtime session settings go to
 * the plugin EP. Thread safe.
 */
final class PluginEpFactory implements EpFactory {
    /** EP metadata: the registration name of the plugin-EP library behind the device. */
    static final String ORT_LIBRARY = "ort.library";

    private static final Pattern SEMVER = Pattern.compile(
            "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");

    private final PluginLibrary library;
    private final String epName;
    private final String ortEpName;
    private final String vendor;
    private final String version;

    /**
     * Creates the factory.
     *
     * @param library the library the EP belongs to
     * @param epName the plugin EP's name
     * @param vendor the plugin EP's vendor
     * @param version the plugin's version metadata, or {@code null}
     */
    PluginEpFactory(PluginLibrary library, String epName, String vendor, String version) {
        this(library, epName, epName, vendor, version);
    }

    /**
     * Creates a factory whose Ortex EP name differs from ONNX Runtime's.
     *
     * @param library the library the EP belongs to
     * @param epName the Ortex EP name
     * @param ortEpName the plugin EP's name in ONNX Runtime
     * @param vendor the plugin EP's vendor
     * @param version the plugin's version metadata, or {@code null}
     */
    PluginEpFactory(PluginLibrary library, String epName, String ortEpName, String vendor, String version) {
        this.library = library;
        this.epName = epName;
        this.ortEpName = ortEpName;
        this.vendor = vendor;
        this.version = version != null && SEMVER.matcher(version).matches() ? version : OrtRuntime.version();
    }

    @Override
    public String name() {
        return epName;
    }

    @Override
    public String vendor() {
        return vendor;
    }

    /** ONNX Runtime's Java API does not tell the plugin factory's vendor id. */
    @Override
    public int vendorId() {
        return 0;
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware,
                                                  Map<String, String> environmentConfig) {
        List<SupportedDevice> out = new ArrayList<>();
        for (OrtEpDevice d : OrtRuntime.epDevices()) {
            if (d.getEpName().equals(ortEpName)) {
                SupportedDevice s = OrtDevices.supported(d, hardware, Map.of(ORT_LIBRARY, library.name()));
                if (OrtDevices.offered(s, environmentConfig)) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        return OrtEpFactory.create(epName, devices, sessionConfig, true, library);
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
        if (ep instanceof OrtExecutionProvider o) {
            o.close();
        }
    }
}
