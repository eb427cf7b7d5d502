package io.ortex.runtime.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * Builds a real EP library jar during a test: writes the Java source of an {@code EpFactory} and its
 * {@code ExecutionProvider} (which claims the float Mul nodes of the default domain and computes them), compiles it
 * against the test class path, and jars the classes with a {@code META-INF/services} entry. The classes exist only in
 * the jar, so the runtime loads them in the library's own class loader. The compiler is the JDK's {@code javac}
 * found through {@link ToolProvider}, which needs no {@code java.compiler} module read from the runtime's tests.
 *
 * <p>The compiled code reports to {@link PluginCalls} any call it receives after its library was released (its class
 * loader closed, which it notices because its own marker resource can no longer be found) or after its EP was
 * released.
 */
final class PluginJar {
    /** The vendor of the compiled EP, as in ONNX Runtime's example plugin EP. */
    static final String VENDOR = "Contoso";
    /** The PCI vendor id of the compiled EP and of its virtual device. */
    static final int VENDOR_ID = 0xB358;
    /** The version the compiled EP reports unless told otherwise. */
    static final String VERSION = "0.1.0";

    private static final String PACKAGE = "ortextest.plugin";
    private static final String MARKER = "ortextest/plugin-marker.txt";

    private String epName = "MulEP";
    private String version = VERSION;
    private boolean setsVersionMetadata;
    private boolean virtualOnly;
    private boolean withProvider = true;
    private Fault fault = Fault.NONE;

    /** A deliberate fault of the compiled EP. */
    enum Fault {
        /** None: the EP works. */
        NONE,
        /** {@code getCapability} throws. */
        CAPABILITY_THROWS,
        /** {@code compile} throws. */
        COMPILE_THROWS,
        /** {@code compile} blocks until {@link PluginCalls#releaseHangs()}, ignoring interrupts. */
        COMPILE_HANGS,
        /** A kernel's {@code compute} throws when its first input's first element is negative. */
        COMPUTE_THROWS_ON_NEGATIVE
    }

    /** Sets the EP name (default {@code MulEP}). */
    PluginJar epName(String name) {
        this.epName = name;
        return this;
    }

    /** Sets the version the factory reports. */
    PluginJar version(String v) {
        this.version = v;
        return this;
    }

    /** Makes the factory put {@code version} into its devices' metadata itself, which the runtime refuses. */
    PluginJar setsVersionMetadata() {
        this.setsVersionMetadata = true;
        return this;
    }

    /**
     * Makes the factory offer one virtual NPU (vendor id {@link #VENDOR_ID}, {@code is_virtual=1}, metadata
     * {@code some_metadata=1}, option {@code compile_optimization=O3}) when, and only when, the environment config it
     * is given has {@code allow_virtual_devices=1}, and no real device. By default it offers every real CPU device with
     * metadata {@code supported_devices=CrackGriffin 7+} and option {@code run_really_fast=true}.
     */
    PluginJar virtualOnly() {
        this.virtualOnly = true;
        return this;
    }

    /** Gives the compiled EP a deliberate fault. */
    PluginJar fault(Fault f) {
        this.fault = f;
        return this;
    }

    /** Leaves {@code META-INF/services} out of the jar. */
    PluginJar withoutProvider() {
        this.withProvider = false;
        return this;
    }

    /**
     * Compiles the library and writes the jar.
     *
     * @param dir a scratch folder
     * @param jarName the jar's file name
     * @return the jar
     */
    Path build(Path dir, String jarName) throws IOException {
        Path work = Files.createTempDirectory(dir, "plugin-src");
        Path srcDir = work.resolve("src").resolve(PACKAGE.replace('.', '/'));
        Path classes = work.resolve("classes");
        Files.createDirectories(srcDir);
        Files.createDirectories(classes);
        Path source = srcDir.resolve("TestEpFactory.java");
        Files.writeString(source, source());
        ToolProvider javac = ToolProvider.findFirst("javac")
                .orElseThrow(() -> new IllegalStateException("the tests need a JDK: no javac tool"));
        StringWriter diagnostics = new StringWriter();
        PrintWriter log = new PrintWriter(diagnostics);
        int rc = javac.run(log, log, "--release", "17", "-encoding", "UTF-8", "-proc:none",
                "-classpath", testClassPath(), "-d", classes.toString(), source.toString());
        log.flush();
        if (rc != 0) {
            throw new IllegalStateException("the plugin did not compile:\n" + diagnostics);
        }
        Path jar = dir.resolve(jarName);
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                put(out, classes.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            }
            put(out, MARKER, "marks the plugin's own class loader\n".getBytes(StandardCharsets.UTF_8));
            if (withProvider) {
                put(out, "META-INF/services/io.ortex.api.spi.EpFactory",
                        (PACKAGE + ".TestEpFactory\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return jar;
    }

    private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new JarEntry(name));
        OutputStream o = out;
        o.write(bytes);
        out.closeEntry();
    }

    /** The real class path: surefire runs tests through a manifest-only jar and names the real path here. */
    private static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    private String source() {
        return TEMPLATE.replace("@PACKAGE@", PACKAGE)
                .replace("@NAME@", epName)
                .replace("@VENDOR@", VENDOR)
                .replace("@VENDOR_ID@", Integer.toString(VENDOR_ID))
                .replace("@VERSION@", version)
                .replace("@SETS_VERSION@", Boolean.toString(setsVersionMetadata))
                .replace("@VIRTUAL_ONLY@", Boolean.toString(virtualOnly))
                .replace("@MARKER@", MARKER)
                .replace("@FAULT@", fault.name());
    }

    private static final String TEMPLATE = """
            package @PACKAGE@;

            import io.ortex.api.ElementType;
            import io.ortex.api.HardwareDevice;
            import io.ortex.api.HardwareDeviceType;
            import io.ortex.api.Tensor;
            import io.ortex.api.TensorInfo;
            import io.ortex.api.spi.ComputeKernel;
            import io.ortex.api.spi.EpFactory;
            import io.ortex.api.spi.ExecutionProvider;
            import io.ortex.api.spi.FusedNode;
            import io.ortex.api.spi.GraphSupport;
            import io.ortex.api.spi.GraphView;
            import io.ortex.api.spi.KernelContext;
            import io.ortex.api.spi.NodeView;
            import io.ortex.api.spi.SupportedDevice;
            import io.ortex.api.spi.ValueView;
            import io.ortex.runtime.internal.PluginCalls;
            import java.util.ArrayList;
            import java.util.HashMap;
            import java.util.LinkedHashMap;
            import java.util.List;
            import java.util.Map;
            import java.util.Optional;

            public final class TestEpFactory implements EpFactory {
                static final String NAME = "@NAME@";

                static final String FAULT = "@FAULT@";

                public TestEpFactory() {
                }

                static void check(String call) {
                    if (TestEpFactory.class.getClassLoader().getResource("@MARKER@") == null) {
                        PluginCalls.violation(NAME + "." + call + " was called after its library was released");
                    }
                }

                public String name() { check("name"); return NAME; }
                public String vendor() { check("vendor"); return "@VENDOR@"; }
                public int vendorId() { check("vendorId"); return @VENDOR_ID@; }
                public String version() { check("version"); return "@VERSION@"; }

                public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> env) {
                    check("supportedDevices");
                    List<SupportedDevice> out = new ArrayList<>();
                    if (@VIRTUAL_ONLY@) {
                        if ("1".equals(env.get("allow_virtual_devices"))) {
                            HardwareDevice npu = new HardwareDevice(HardwareDeviceType.NPU, @VENDOR_ID@, 0, "@VENDOR@",
                                    Map.of("is_virtual", "1"));
                            out.add(new SupportedDevice(npu, Map.of("some_metadata", "1"),
                                    Map.of("compile_optimization", "O3")));
                        }
                        return out;
                    }
                    Map<String, String> metadata = new LinkedHashMap<>();
                    metadata.put("supported_devices", "CrackGriffin 7+");
                    if (@SETS_VERSION@) {
                        metadata.put("version", "9.9.9");
                    }
                    for (HardwareDevice d : hardware) {
                        if (d.type() == HardwareDeviceType.CPU) {
                            out.add(new SupportedDevice(d, metadata, Map.of("run_really_fast", "true")));
                        }
                    }
                    return out;
                }

                public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> config) {
                    check("createEp");
                    return new MulEp();
                }

                public void releaseEp(ExecutionProvider ep) {
                    check("releaseEp");
                    ((MulEp) ep).release();
                }

                static final class MulEp implements ExecutionProvider {
                    private volatile boolean released;

                    void check(String call) {
                        TestEpFactory.check("ep." + call);
                        if (released) {
                            PluginCalls.violation(NAME + ".ep." + call + " was called after releaseEp");
                        }
                    }

                    void release() {
                        check("release");
                        released = true;
                    }

                    public String name() { check("name"); return NAME; }

                    public void getCapability(GraphView graph, GraphSupport support) {
                        check("getCapability");
                        if (FAULT.equals("CAPABILITY_THROWS")) {
                            throw new IllegalStateException("a deliberate failure in getCapability");
                        }
                        for (NodeView n : graph.nodes()) {
                            if (n.opType().equals("Mul") && n.domain().isEmpty() && allFloat(n.inputs())
                                    && allFloat(n.outputs())) {
                                support.addSingleNode(n);
                            }
                        }
                    }

                    private static boolean allFloat(List<ValueView> values) {
                        for (ValueView v : values) {
                            Optional<TensorInfo> t = v.typeInfo();
                            if (t.isPresent() && t.get().type() != null && t.get().type() != ElementType.FLOAT) {
                                return false;
                            }
                        }
                        return true;
                    }

                    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
                        check("compile");
                        if (FAULT.equals("COMPILE_THROWS")) {
                            throw new IllegalStateException("a deliberate failure in compile");
                        }
                        if (FAULT.equals("COMPILE_HANGS")) {
                            PluginCalls.hang();
                        }
                        List<ComputeKernel> out = new ArrayList<>();
                        for (int i = 0; i < graphs.size(); i++) {
                            out.add(new MulKernel(this, graphs.get(i).nodes(), fusedNodes.get(i)));
                        }
                        return out;
                    }

                    public void onRunStart(Map<String, String> runConfig) { check("onRunStart"); }
                    public void onRunEnd(Map<String, String> runConfig) { check("onRunEnd"); }
                }

                static final class MulKernel implements ComputeKernel {
                    private final MulEp ep;
                    private final List<NodeView> nodes;
                    private final List<String> inputs;
                    private final List<String> outputs;

                    MulKernel(MulEp ep, List<NodeView> nodes, FusedNode fused) {
                        this.ep = ep;
                        this.nodes = List.copyOf(nodes);
                        this.inputs = fused.inputNames();
                        this.outputs = fused.outputNames();
                    }

                    public Tensor[] compute(KernelContext context, Tensor[] in) {
                        ep.check("compute");
                        if (FAULT.equals("COMPUTE_THROWS_ON_NEGATIVE") && in[0].floats()[0] < 0) {
                            throw new ArithmeticException("a deliberate failure in compute");
                        }
                        Map<String, Tensor> values = new HashMap<>();
                        for (int i = 0; i < in.length; i++) {
                            values.put(inputs.get(i), in[i]);
                        }
                        for (NodeView n : nodes) {
                            Tensor a = value(values, n.inputs().get(0));
                            Tensor b = value(values, n.inputs().get(1));
                            Tensor big = a.size() >= b.size() ? a : b;
                            float[] x = a.floats();
                            float[] y = b.floats();
                            float[] r = new float[big.size()];
                            for (int k = 0; k < r.length; k++) {
                                r[k] = x[k % x.length] * y[k % y.length];
                            }
                            values.put(n.outputs().get(0).name(), Tensor.ofFloats(r, big.shape()));
                        }
                        Tensor[] out = new Tensor[outputs.size()];
                        for (int i = 0; i < out.length; i++) {
                            out[i] = values.get(outputs.get(i));
                        }
                        return out;
                    }

                    private static Tensor value(Map<String, Tensor> values, ValueView v) {
                        Tensor t = values.get(v.name());
                        return t != null ? t : v.initializer().orElseThrow();
                    }

                    public void close() { ep.check("kernel.close"); }
                }
            }
            """;
}
