package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.HardwareDevice;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.runtime.internal.RuntimeEnvironment;
import io.ortex.serve.internal.status.StatusCollector;
import io.ortex.serve.internal.status.StatusPage;
import io.ortex.serve.internal.status.StatusSnapshot;
import io.ortex.testing.ModelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model on an EP library whose removal begins stays ready while it serves: the repository loads it again on the
 * remaining EPs, the request queued on the old version completes, the drain then ends, and {@code /metrics} shows the
 * EP device active, then draining, then gone; the status page shows it draining, held by the old version's session.
 */
class EpDrainHealthTest {
    private static final String LIBRARY = "drain-test";
    private static final String EP = "DrainTestExecutionProvider";

    @TempDir
    Path models;

    /** The CPU EP under another name, in a library of its own that can be removed. */
    private static final class RenamedCpuFactory implements EpFactory {
        private final CpuEpFactory cpu = new CpuEpFactory();

        @Override
        public String name() {
            return EP;
        }

        @Override
        public String vendor() {
            return "Test";
        }

        @Override
        public int vendorId() {
            return 0;
        }

        @Override
        public String version() {
            return "1.0.0";
        }

        @Override
        public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
            return cpu.supportedDevices(hardware, config);
        }

        @Override
        public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
            ExecutionProvider ep = cpu.createEp(devices, sessionConfig);
            return new ExecutionProvider() {
                @Override
                public String name() {
                    return EP;
                }

                @Override
                public void getCapability(GraphView graph, GraphSupport support) {
                    ep.getCapability(graph, support);
                }

                @Override
                public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
                    return ep.compile(graphs, fusedNodes);
                }

                @Override
                public boolean isConcurrentRunSupported() {
                    return ep.isConcurrentRunSupported();
                }
            };
        }

        @Override
        public void releaseEp(ExecutionProvider ep) {
        }
    }

    private static String gauge(String text, String state) {
        Matcher m = Pattern.compile("(?m)^ortex_ep_device_state\\{library=\"" + LIBRARY + "\",ep=\"" + EP
                + "\",device=\"CPU [^\"]*\",state=\"" + state + "\"} (\\d)$").matcher(text);
        return m.find() ? m.group(1) : null;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(2);
        }
    }

    @Test
    void aModelWhoseEpDrainsStaysReadyWhileItServes() throws Exception {
        new ModelBuilder().opset(17).input("x", ElementType.FLOAT, -1, 3).output("y", ElementType.FLOAT, -1, 3)
                .node("Relu", "relu", List.of("x"), List.of("y")).write(models.resolve("relu/1/model.onnx"));
        // a lone request waits a second in the batching queue: it holds the version while the EP drains
        Files.writeString(models.resolve("relu").resolve(ModelConfig.FILE),
                "policy=PREFER_CPU\nmax_batch_size=2\nmax_queue_delay_us=1000000\n");
        try (Environment env = Environment.create();
             ModelRepository repository = new ModelRepository(env, models)) {
            ((RuntimeEnvironment) env).registerFactories(LIBRARY, List.of(new RenamedCpuFactory()), false);
            Metrics metrics = new Metrics(env::epDevices, env::epLibraries);
            InferenceCore core = new InferenceCore(repository, metrics, "0.1.0");
            StatusCollector status = new StatusCollector(env, repository, metrics, "0.1.0");
            repository.start(60_000);
            await(repository::ready, "the first scan is done");
            ServedModel onTestEp = repository.acquire("relu", null);
            repository.release(onTestEp);
            assertEquals(EP, onTestEp.session().executionProviders().get(0));
            String text = metrics.prometheusText();
            assertEquals("1", gauge(text, "active"), text);
            assertEquals("0", gauge(text, "draining"), text);
            assertTrue(Pattern.compile("(?m)^ortex_ep_device_state\\{library=\"[^\"]*\",ep=\"CPUExecutionProvider\","
                    + "device=\"CPU [^\"]*\",state=\"active\"} 1$").matcher(text).find(),
                    "the built-in CPU EP: " + text);

            Tensor x = Tensor.ofFloats(new float[] {-1, 0, 2}, 1, 3);
            InferRequest request = new InferRequest(null, List.of(new InferRequest.Input("x", Datatype.FP32, x)),
                    List.of(), false);
            CompletableFuture<String> queued = CompletableFuture.supplyAsync(() -> core.infer("relu", null,
                    () -> request, r -> r.version() + " " + java.util.Arrays.toString(r.outputs().get("y").floats())));
            await(() -> onTestEp.batcher().pending() == 1, "the request is queued");

            CompletableFuture<Void> removal = CompletableFuture.runAsync(
                    () -> env.unregisterLibrary(LIBRARY, Duration.ofSeconds(20)));
            await(() -> env.epLibraries().stream().anyMatch(l -> l.name().equals(LIBRARY)
                    && l.state() == EpLibraryInfo.State.DRAINING), "the library drains");
            text = metrics.prometheusText();
            assertEquals("1", gauge(text, "draining"), text);
            assertEquals("0", gauge(text, "active"), text);
            // the status page shows the library draining, held by the old version's session
            StatusSnapshot snapshot = status.snapshot();
            StatusSnapshot.EpRow row = snapshot.eps().stream().filter(r -> r.library().equals(LIBRARY)).findFirst()
                    .orElseThrow();
            assertEquals("draining", row.state());
            assertTrue(row.holders().contains(onTestEp.session().id()), row.toString());
            String page = StatusPage.page(snapshot, "/status.json");
            assertTrue(page.contains("<td class=\"state state-draining\">draining</td>"), page);
            AtomicInteger checks = new AtomicInteger();
            while (!removal.isDone()) {
                assertTrue(core.modelReady("relu", null), "ready while its EP drains");
                checks.incrementAndGet();
                Thread.sleep(5);
            }
            removal.get();
            assertTrue(checks.get() > 10, "checked " + checks + " times during the drain");
            assertEquals("1 [0.0, 0.0, 2.0]", queued.get(10, TimeUnit.SECONDS), "the queued request was answered");
            assertTrue(onTestEp.closed());

            assertTrue(core.modelReady("relu", null));
            ServedModel onCpu = repository.acquire("relu", null);
            repository.release(onCpu);
            assertEquals(List.of("CPUExecutionProvider"), onCpu.session().executionProviders());
            assertFalse(onCpu.closed());
            text = metrics.prometheusText();
            assertNull(gauge(text, "active"), text);
            assertNull(gauge(text, "draining"), text);
        }
    }
}
