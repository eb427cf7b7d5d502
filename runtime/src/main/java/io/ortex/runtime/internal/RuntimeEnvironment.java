package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.ErrorCode;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The runtime's {@link Environment}: the hardware devices, the EP factories and their EP devices, and the sessions
 * open in it. Thread safe.
 */
final class RuntimeEnvironment implements Environment {
    /** The name of the built-in CPU EP, always the fallback. */
    static final String CPU_EP = "CPUExecutionProvider";

    private static final Pattern SEMVER = Pattern.compile(
            "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");

    private final Map<String, String> config;
    private final List<HardwareDevice> hardware;
    private final Map<String, EpFactory> factories = new LinkedHashMap<>();
    private final List<EpDevice> epDevices = new ArrayList<>();
    private final Set<InferenceSession> sessions = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    RuntimeEnvironment(Map<String, String> config, List<HardwareDevice> hardware, List<EpFactory> factoryList) {
        this.config = Map.copyOf(config);
        this.hardware = List.copyOf(hardware);
        for (EpFactory f : factoryList) {
            if (factories.putIfAbsent(f.name(), f) != null) {
                throw new OrtexException(ErrorCode.FAIL, "two EP factories are named '" + f.name() + "'");
            }
            epDevices.addAll(devicesOf(f));
        }
    }

    private List<EpDevice> devicesOf(EpFactory f) {
        if (!SEMVER.matcher(f.version()).matches()) {
            throw new OrtexException(ErrorCode.INVALID_ARGUMENT, "EP factory '" + f.name() + "' has version '"
                    + f.version() + "', which is not SemVer 2.0");
        }
        List<EpDevice> out = new ArrayList<>();
        for (SupportedDevice d : f.supportedDevices(hardware, config)) {
            if (d.epMetadata().containsKey(EpDevice.VERSION)) {
                throw new OrtexException(ErrorCode.INVALID_ARGUMENT, "EP factory '" + f.name()
                        + "' must not set the 'version' metadata itself");
            }
            Map<String, String> metadata = new LinkedHashMap<>(d.epMetadata());
            metadata.put(EpDevice.VERSION, f.version());
            out.add(new EpDevice(f.name(), f.vendor(), metadata, d.epOptions(), d.device()));
        }
        return out;
    }

    @Override
    public List<HardwareDevice> hardwareDevices() {
        return hardware;
    }

    @Override
    public List<EpDevice> epDevices() {
        return Collections.unmodifiableList(epDevices);
    }

    @Override
    public Map<String, String> config() {
        return config;
    }

    @Override
    public Session createSession(Path model, SessionOptions options) {
        checkOpen();
        return open(ModelReader.read(model), options);
    }

    @Override
    public Session createSession(byte[] model, SessionOptions options) {
        checkOpen();
        String folder = options.configValue(SessionOptions.MODEL_EXTERNAL_INITIALIZERS_FOLDER, null);
        return open(ModelReader.read(model, folder == null ? null : Path.of(folder)), options);
    }

    private Session open(OnnxModel model, SessionOptions options) {
        EpFactory cpu = factories.get(CPU_EP);
        if (cpu == null) {
            throw new OrtexException(ErrorCode.EP_UNAVAILABLE, "the CPU EP (" + CPU_EP + ") is not installed");
        }
        List<SupportedDevice> cpuDevices = new ArrayList<>();
        for (EpDevice d : epDevices) {
            if (d.epName().equals(CPU_EP)) {
                cpuDevices.add(new SupportedDevice(d.device(), Map.of(), d.epOptions()));
            }
        }
        if (options.intraOpThreads() < 0) {
            throw new InvalidArgumentException("intra-op threads must not be negative");
        }
        InferenceSession session = InferenceSession.create(model, options,
                List.of(new EpBinding(cpu, cpuDevices)), sessions::remove);
        sessions.add(session);
        return session;
    }

    private void checkOpen() {
        if (closed) {
            throw new OrtexException(ErrorCode.FAIL, "the environment is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        for (InferenceSession s : List.copyOf(sessions)) {
            s.close();
        }
    }
}
