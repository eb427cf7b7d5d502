package io.ortex.runtime.osgi;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.HardwareDevice;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.proto.Onnx;
import io.ortex.runtime.internal.RuntimeEnvironment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Version;

/**
 * Several versions of one EP bundle, as {@link BundleLibraries} sees their factory services come and go: the newest
 * serves new sessions at once while an older one in use drains; an older one arriving later stands by and serves
 * again when the newer goes.
 */
class BundleLibrariesTest {
    private static final String BUNDLE = "com.example.ep";
    private static final String EP = "VersionedEP";

    private final RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU));
    private final BundleLibraries libraries = new BundleLibraries(env, () -> RuntimeSettings.parse(Map.of(
            RuntimeSettings.DRAIN_LIMIT_SECONDS, "30", RuntimeSettings.DRAIN_OUTCOME, RuntimeSettings.OUTCOME_WAIT)));

    BundleLibrariesTest() {
        env.registerFactories("io.ortex.ep.cpu", List.of(new CpuEpFactory()), false);
    }

    @AfterEach
    void close() {
        env.close();
    }

    /** A factory of one EP name whose EPs take no node; it says which version it is and counts its EPs. */
    static final class VersionedFactory implements EpFactory {
        final String name;
        final String version;
        final AtomicInteger created = new AtomicInteger();

        VersionedFactory(String version) {
            this(EP, version);
        }

        VersionedFactory(String name, String version) {
            this.name = name;
            this.version = version;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String vendor() {
            return "tests";
        }

        @Override
        public int vendorId() {
            return 0;
        }

        @Override
        public String version() {
            return version;
        }

        @Override
        public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
            return hardware.stream().map(h -> new SupportedDevice(h, Map.of(), Map.of())).toList();
        }

        @Override
        public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
            created.incrementAndGet();
            return new ExecutionProvider() {
                @Override
                public String name() {
                    return name;
                }

                @Override
                public void getCapability(GraphView graph, GraphSupport support) {
                    // takes nothing: the CPU EP runs the model
                }

                @Override
                public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
                    return List.of();
                }
            };
        }

        @Override
        public void releaseEp(ExecutionProvider ep) {
            // nothing held
        }
    }

    private Session openOnTheEp() {
        List<EpDevice> devices = env.epDevices().stream().filter(d -> d.epName().equals(EP)).toList();
        return env.createSession(reluModel(), new SessionOptions().appendExecutionProvider(devices, Map.of()));
    }

    private static byte[] reluModel() {
        Onnx.TypeProto type = Onnx.TypeProto.newBuilder().setTensorType(Onnx.TypeProto.Tensor.newBuilder()
                .setElemType(1).setShape(Onnx.TensorShapeProto.newBuilder()
                        .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(2)))).build();
        Onnx.GraphProto graph = Onnx.GraphProto.newBuilder().setName("relu")
                .addInput(Onnx.ValueInfoProto.newBuilder().setName("x").setType(type))
                .addOutput(Onnx.ValueInfoProto.newBuilder().setName("y").setType(type))
                .addNode(Onnx.NodeProto.newBuilder().setOpType("Relu").addInput("x").addOutput("y")).build();
        return Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setVersion(17)).build().toByteArray();
    }

    private List<EpLibraryInfo> mine() {
        return env.epLibraries().stream().filter(l -> l.name().equals(BUNDLE)).toList();
    }

    @Test
    void aNewerVersionServesNewSessionsWhileTheOlderDrains() throws Exception {
        VersionedFactory v1 = new VersionedFactory("1.0.0");
        VersionedFactory v2 = new VersionedFactory("2.0.0");
        assertTrue(libraries.factoryAdded(10, BUNDLE, new Version(1, 0, 0), 100, v1));
        Session old = openOnTheEp();
        assertEquals(1, v1.created.get());

        assertTrue(libraries.factoryAdded(11, BUNDLE, new Version(2, 0, 0), 101, v2));
        assertEquals(BundleLibraries.Role.DRAINING, libraries.role(10));
        assertEquals(BundleLibraries.Role.SERVING, libraries.role(11));
        assertEquals(List.of("2.0.0"), env.epDevices().stream().filter(d -> d.epName().equals(EP))
                .map(EpDevice::version).toList(), "only the newer version can be selected");
        try (Session fresh = openOnTheEp()) {
            assertEquals(1, v2.created.get(), "a new session gets the newer version");
            assertEquals(1, v1.created.get());
            List<EpLibraryInfo> both = mine();
            assertEquals(2, both.size(), both.toString());
            EpLibraryInfo draining = both.stream().filter(l -> l.state() == EpLibraryInfo.State.DRAINING)
                    .findFirst().orElseThrow();
            assertEquals(List.of(old.id()), draining.holders());
            assertEquals("1.0.0", draining.devices().get(0).version());
            assertTrue(old.run(Map.of("x", io.ortex.api.Tensor.ofFloats(new float[] {-1, 2}, 2))).containsKey("y"),
                    "the old session still runs on the version it holds");
        }
        old.close();
        await(() -> mine().size() == 1, "the older version is released once its session closed");
        // the role follows on the thread that finished the drain, just after the release
        await(() -> libraries.role(10) == BundleLibraries.Role.STANDBY, "the older version stands by");
    }

    @Test
    void removingTheOlderVersionWhileItDrainsWaitsForItsSessions() throws Exception {
        VersionedFactory v1 = new VersionedFactory("1.0.0");
        libraries.factoryAdded(10, BUNDLE, new Version(1, 0, 0), 100, v1);
        Session old = openOnTheEp();
        libraries.factoryAdded(11, BUNDLE, new Version(1, 1, 0), 101, new VersionedFactory("1.1.0"));
        CompletableFuture<Void> removed = CompletableFuture.runAsync(
                () -> libraries.factoryRemoved(10, 100, () -> false));
        Thread.sleep(300);
        assertFalse(removed.isDone(), "the service must not be given back while a session uses its factory");
        old.close();
        removed.get(10, TimeUnit.SECONDS);
        assertNull(libraries.role(10));
        assertEquals(1, mine().size());
    }

    @Test
    void anOlderVersionStandsByAndServesWhenTheNewerGoes() {
        VersionedFactory v1 = new VersionedFactory("1.0.0");
        VersionedFactory v2 = new VersionedFactory("2.0.0");
        libraries.factoryAdded(11, BUNDLE, new Version(2, 0, 0), 101, v2);
        libraries.factoryAdded(10, BUNDLE, new Version(1, 0, 0), 100, v1);
        assertEquals(BundleLibraries.Role.STANDBY, libraries.role(10));
        assertEquals(1, mine().size());

        libraries.factoryRemoved(11, 101, () -> false);
        assertEquals(BundleLibraries.Role.SERVING, libraries.role(10));
        try (Session s = openOnTheEp()) {
            assertEquals(1, v1.created.get());
        }
        assertTrue(libraries.isBundleLibrary(BUNDLE));
        libraries.factoryRemoved(10, 100, () -> false);
        assertFalse(libraries.isBundleLibrary(BUNDLE));
        assertTrue(mine().isEmpty());
    }

    @Test
    void aBundleThatStaysActiveServesWithItsOtherFactories() {
        VersionedFactory first = new VersionedFactory("1.0.0");
        EpFactory second = new VersionedFactory("SecondEP", "1.0.0");
        libraries.factoryAdded(10, BUNDLE, new Version(1, 0, 0), 100, first);
        libraries.factoryAdded(10, BUNDLE, new Version(1, 0, 0), 101, second);
        assertEquals(2, mine().get(0).devices().size());
        libraries.factoryRemoved(10, 100, () -> true);
        assertEquals(List.of("SecondEP"), mine().get(0).devices().stream().map(EpDevice::epName).toList());
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + 10_000;
        while (!condition.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < end, "timed out waiting until " + what);
            Thread.sleep(10);
        }
    }
}
