package io.ortex.ep.example;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpMemory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import io.ortex.ep.example.program.ProgramCodec;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.osgi.service.component.annotations.Component;

/**
 * The factory of the example EP. It offers one device, an emulated NPU that exists only as a virtual device: it is
 * listed only when the environment allows virtual devices ({@link Environment#ALLOW_VIRTUAL_DEVICES}{@code =1}, which
 * the runtime sets for a library registered under a name ending in {@code .virtual}), and is created by the factory
 * itself rather than found among the machine's hardware. Thread safe and stateless. In an OSGi framework it is a
 * Declarative Services component registered as an {@link EpFactory} service; its virtual NPU is listed once the
 * runtime's configuration grants this bundle virtual devices.
 */
@Component(service = EpFactory.class, property = {
    "ep.name=" + ExampleEpFactory.NAME,
    "ep.vendor=" + ExampleEpFactory.VENDOR,
    "ep.device_types=NPU"
})
public final class ExampleEpFactory implements EpFactory, EpMemory {
    /** The EP name. */
    public static final String NAME = "ExampleExecutionProvider";
    /** The EP vendor, also the vendor of its virtual NPU. */
    public static final String VENDOR = "Ortex Examples";
    /**
     * The vendor id of the EP and of its virtual NPU: {@code 0x4F58} ("OX"), made up for this example and not a
     * PCI-SIG assigned id; it lets the selection policies' "device vendor matches EP vendor" rule apply.
     */
    public static final int VENDOR_ID = 0x4F58;
    /** The EP version (SemVer). */
    public static final String VERSION = "0.1.0";
    /** The ONNX ops the EP implements, as published in the EP metadata {@code supported_ops}. */
    public static final String SUPPORTED_OPS = "MatMul,Gemm,Add,Mul,Relu,Conv";
    /**
     * EP option: {@code "1"} (default) folds each Relu into the instruction that produces its operand, {@code "0"}
     * keeps it a separate instruction. Given per session as {@code ep.exampleexecutionprovider.fuse}.
     */
    public static final String OPTION_FUSE = "fuse";
    /**
     * EP option: {@code "NHWC"} (default) makes the EP prefer channels-last data, so that the runtime converts its
     * Conv nodes to the NHWC domain ({@link io.ortex.api.spi.DataLayout}); {@code "NCHW"} keeps them as ONNX has
     * them. Given per session as {@code ep.exampleexecutionprovider.layout}.
     */
    public static final String OPTION_LAYOUT = "layout";
    /**
     * EP option: {@code "host"} (default) makes the EP work in host memory like the CPU EP; {@code "device"} makes it
     * work in the emulated NPU's own memory outside the Java heap ({@code ExampleNpu}): the runtime copies its inputs
     * in through the factory's data transfer, its outputs stay there for its next partition, and are copied to host
     * only where the CPU reads them. Given per session as {@code ep.exampleexecutionprovider.memory}.
     */
    public static final String OPTION_MEMORY = "memory";
    /**
     * EP option: how many milliseconds each partition's program waits on the emulated NPU's stream before it runs
     * ({@code memory=device} only), 0 by default; given per session as
     * {@code ep.exampleexecutionprovider.stream_delay_ms}. Emulates a slow device, so that a reader that does not wait
     * for the stream would see outputs not yet written.
     */
    public static final String OPTION_STREAM_DELAY_MS = "stream_delay_ms";

    /** The architecture written into EPContext nodes ({@code hardware_architecture}): the host-emulated NPU. */
    public static final String HARDWARE_ARCHITECTURE = "ortex-emulated-npu";

    /** The virtual NPU: type NPU, this EP's vendor and vendor id, device id 0, {@code is_virtual=1}. */
    public static final HardwareDevice VIRTUAL_NPU = new HardwareDevice(HardwareDeviceType.NPU, VENDOR_ID, 0, VENDOR,
            Map.of(HardwareDevice.IS_VIRTUAL, "1"));

    private static final String SESSION_OPTION_PREFIX = "ep." + NAME.toLowerCase(Locale.ROOT) + ".";

    private final AtomicInteger liveStreams = new AtomicInteger();

    /** Creates the factory; called by {@link java.util.ServiceLoader} or the OSGi runtime. */
    public ExampleEpFactory() {
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

    @Override
    public String version() {
        return VERSION;
    }

    /**
     * Offers the virtual NPU when the environment allows virtual devices, and nothing otherwise; the machine's real
     * hardware is ignored, as the EP needs none. The entry carries EP metadata {@code supported_ops} and
     * {@code emulation=host}, and the default EP options {@code fuse=1} and {@code layout=NHWC}; {@code version} is
     * added by the runtime.
     */
    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware,
                                                  Map<String, String> environmentConfig) {
        if (!"1".equals(environmentConfig.get(Environment.ALLOW_VIRTUAL_DEVICES))) {
            return List.of();
        }
        return List.of(new SupportedDevice(VIRTUAL_NPU,
                Map.of("supported_ops", SUPPORTED_OPS, "emulation", "host"),
                Map.of(OPTION_FUSE, "1", OPTION_LAYOUT, DataLayout.NHWC.name())));
    }

    /** The error code {@link #deviceIncompatibility} gives a device other than the EP's own virtual NPU. */
    public static final int NOT_ITS_NPU = 1;

    /**
     * {@inheritDoc} The example EP runs on the virtual NPU it offers itself (when virtual devices are granted), never
     * on a hardware device: every other device is incompatible, with error code {@link #NOT_ITS_NPU}.
     */
    @Override
    public DeviceIncompatibility deviceIncompatibility(HardwareDevice device) {
        if (device.equals(VIRTUAL_NPU)) {
            return DeviceIncompatibility.COMPATIBLE;
        }
        return new DeviceIncompatibility(DeviceIncompatibility.DEVICE_INCOMPATIBLE, NOT_ITS_NPU, NAME
                + " emulates an NPU of its own (a virtual device, offered when virtual devices are granted) and "
                + "runs on no other " + device.type());
    }

    /**
     * Creates an EP for the virtual NPU. The options {@code fuse} and {@code layout} come from the session
     * configuration ({@code ep.exampleexecutionprovider.fuse}, {@code ep.exampleexecutionprovider.layout}), else from
     * the device's default options. With
     * {@code ep.share_ep_contexts=1} (or {@code ep.stop_share_ep_contexts=1}) its EPContext payloads keep their
     * packed weights as shared blobs.
     *
     * @throws InvalidArgumentException when a device is not this factory's NPU, {@code fuse} is not 0 or 1, or
     *     {@code layout} is not NHWC or NCHW
     */
    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        if (devices.isEmpty()) {
            throw new InvalidArgumentException(NAME + " needs its virtual NPU device, none was selected");
        }
        String fuse = "1";
        String layout = DataLayout.NHWC.name();
        String memory = sessionConfig.getOrDefault(SESSION_OPTION_PREFIX + OPTION_MEMORY, "host");
        if (!memory.equals("host") && !memory.equals("device")) {
            throw new InvalidArgumentException("EP option " + Names.quote(OPTION_MEMORY) + " of " + NAME
                    + " must be host or device, got " + Names.quote(memory));
        }
        for (SupportedDevice d : devices) {
            HardwareDevice hw = d.device();
            if (hw.type() != HardwareDeviceType.NPU || hw.vendorId() != VENDOR_ID || !hw.isVirtual()) {
                throw new InvalidArgumentException(NAME + " cannot use device " + d.device());
            }
            fuse = d.epOptions().getOrDefault(OPTION_FUSE, fuse);
            layout = d.epOptions().getOrDefault(OPTION_LAYOUT, layout);
        }
        layout = sessionConfig.getOrDefault(SESSION_OPTION_PREFIX + OPTION_LAYOUT, layout);
        if (!layout.equals(DataLayout.NHWC.name()) && !layout.equals(DataLayout.NCHW.name())) {
            throw new InvalidArgumentException("EP option " + Names.quote(OPTION_LAYOUT) + " of " + NAME
                    + " must be NHWC or NCHW, got " + Names.quote(layout));
        }
        fuse = sessionConfig.getOrDefault(SESSION_OPTION_PREFIX + OPTION_FUSE, fuse);
        if (!fuse.equals("0") && !fuse.equals("1")) {
            throw new InvalidArgumentException("EP option " + Names.quote(OPTION_FUSE) + " of " + NAME
                    + " must be 0 or 1, got '"
                    + fuse + "'");
        }
        boolean share = "1".equals(sessionConfig.get(SessionOptions.EP_SHARE_EP_CONTEXTS))
                || "1".equals(sessionConfig.get(SessionOptions.EP_STOP_SHARE_EP_CONTEXTS));
        return new ExampleExecutionProvider(fuse.equals("1"), share, DataLayout.valueOf(layout),
                memory.equals("device"));
    }

    /**
     * Declares the emulated NPU's memories: {@code ExampleNpu}, its device memory, and {@code ExampleNpuWeights}, its
     * read-only memory for initializers (ONNX Runtime's {@code OrtEpDevice_AddAllocatorInfo}).
     */
    @Override
    public List<MemoryInfo> memoryInfos() {
        return List.of(DeviceMemory.DEVICE, DeviceMemory.WEIGHTS);
    }

    /** Creates an allocator of direct buffers for one of its memories; the environment shares it across sessions. */
    @Override
    public TensorAllocator createAllocator(MemoryInfo memory) {
        if (!memoryInfos().contains(memory)) {
            throw new InvalidArgumentException(NAME + " has no memory " + memory);
        }
        return new DeviceMemory.Allocator(memory);
    }

    /** Takes back an allocator; its blocks are freed by the garbage collector once their tensors are closed. */
    @Override
    public void releaseAllocator(TensorAllocator allocator) {
    }

    /**
     * Says the EP queues its work on streams ({@code OrtEpFactory::IsStreamAware}): in a session with the EP option
     * {@code memory=device}, the runtime asks {@link #createSyncStream} for the emulated NPU's stream.
     */
    @Override
    public boolean isStreamAware() {
        return true;
    }

    /**
     * Creates a stream of the emulated NPU ({@code OrtEpFactory::CreateSyncStreamForDevice}; the EP creates none
     * itself, so sessions get theirs here): a thread of its own that runs the partitions' programs and the copies back
     * to host memory in order. The option {@code ep.exampleexecutionprovider.stream_delay_ms} (0 by default) delays
     * each program on the stream, emulating a slower device.
     *
     * @throws InvalidArgumentException when the delay is not a non-negative number
     */
    @Override
    public Optional<SyncStream> createSyncStream(MemoryDevice device, Map<String, String> options) {
        if (!device.equals(DeviceMemory.NPU_MEMORY)) {
            return Optional.empty();
        }
        String delay = options.getOrDefault(SESSION_OPTION_PREFIX + OPTION_STREAM_DELAY_MS, "0");
        long millis;
        try {
            millis = Long.parseLong(delay);
        } catch (NumberFormatException e) {
            millis = -1;
        }
        if (millis < 0) {
            throw new InvalidArgumentException("EP option " + Names.quote(OPTION_STREAM_DELAY_MS) + " of " + NAME
                    + " must be a number of milliseconds, got " + Names.quote(delay));
        }
        liveStreams.incrementAndGet();
        return Optional.of(new NpuStream(millis, liveStreams::decrementAndGet));
    }

    /**
     * Gets how many streams this factory created that are not yet released.
     *
     * @return the count
     */
    int liveStreams() {
        return liveStreams.get();
    }

    /** Copies between host memory and the emulated NPU's memory ({@code OrtEpFactory::CreateDataTransfer}). */
    @Override
    public Optional<DataTransfer> dataTransfer() {
        return Optional.of(new DeviceMemory.Transfer());
    }

    /**
     * Gets the compatibility string the EP stores in compiled models:
     * {@code ExampleExecutionProvider;version=<EP version>;format=<program format>}.
     *
     * @return the string
     */
    public static String compatibilityInfo() {
        return NAME + ";version=" + VERSION + ";format=" + ProgramCodec.FORMAT;
    }

    /**
     * Judges a compiled model's compatibility string: {@code SUPPORTED_OPTIMAL} for this EP version and program
     * format; {@code SUPPORTED_PREFER_RECOMPILATION} for another version with the same major number, or an older
     * program format; {@code UNSUPPORTED} for another EP, another major version, a newer format or a malformed
     * string. The devices do not matter: the emulated NPU is the same everywhere.
     */
    @Override
    public CompiledModelCompatibility validateCompiledModelCompatibility(List<HardwareDevice> devices,
                                                                        String compatibilityInfo) {
        String[] parts = compatibilityInfo == null ? new String[0] : compatibilityInfo.split(";");
        if (parts.length < 3 || !parts[0].equals(NAME)) {
            return CompiledModelCompatibility.UNSUPPORTED;
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq > 0) {
                fields.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
            }
        }
        String version = fields.get("version");
        int format;
        try {
            format = Integer.parseInt(fields.getOrDefault("format", ""));
        } catch (NumberFormatException e) {
            return CompiledModelCompatibility.UNSUPPORTED;
        }
        if (version == null || !major(version).equals(major(VERSION)) || format > ProgramCodec.FORMAT) {
            return CompiledModelCompatibility.UNSUPPORTED;
        }
        if (format < ProgramCodec.FORMAT || !version.equals(VERSION)) {
            return CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION;
        }
        return CompiledModelCompatibility.SUPPORTED_OPTIMAL;
    }

    private static String major(String semver) {
        int dot = semver.indexOf('.');
        return dot < 0 ? semver : semver.substring(0, dot);
    }

    /** Nothing to release: an EP holds only its compiled programs, which go with it. */
    @Override
    public void releaseEp(ExecutionProvider ep) {
        if (!(ep instanceof ExampleExecutionProvider)) {
            throw new InvalidArgumentException(NAME + " did not create " + ep);
        }
    }
}
