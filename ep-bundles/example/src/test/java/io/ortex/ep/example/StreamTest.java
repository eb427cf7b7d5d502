package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.HardwareDevice;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.SyncNotification;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.RuntimeEnvironment;
import io.ortex.runtime.internal.discovery.HardwareDiscovery;
import io.ortex.testing.ModelBuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The example EP's emulated NPU stream ({@code memory=device}): the factory is stream aware and creates one stream per
 * session; the partitions' programs and the copies back to host memory run on the stream's own thread, later than the
 * calls that queue them, and the runtime's waits make the outputs equal the CPU EP's, from several threads at once;
 * the stream is released with its session.
 */
class StreamTest {
    private static final Map<String, String> CONFIG = Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1");
    private static final List<HardwareDevice> HARDWARE = new HardwareDiscovery(CONFIG).discover();
    private final Random random = new Random(1414);

    /**
     * {@code out = MatMul(Relu(MatMul(x, w1) + b), w2) + Sigmoid(...)}: the EP claims the MatMuls, Add and Relu; the
     * Sigmoid runs on the CPU EP between its partitions, so values cross from the NPU's stream to the host and back.
     */
    private OnnxModel split() {
        return new ModelBuilder().input("x", 4, 8)
                .initializer("w1", Tensors.random(random, 8, 16))
                .initializer("b", Tensors.random(random, 16))
                .initializer("w2", Tensors.random(random, 16, 6))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h"))
                .node("Add", "bias", List.of("h", "b"), List.of("hb"))
                .node("Relu", "relu", List.of("hb"), List.of("r"))
                .node("MatMul", "mm2", List.of("r", "w2"), List.of("m"))
                .node("Sigmoid", "sigmoid", List.of("m"), List.of("g"))
                .valueInfo("g", ElementType.FLOAT)
                .node("Mul", "gate", List.of("m", "g"), List.of("out"))
                .output("out").build();
    }

    private static RuntimeEnvironment environment(ExampleEpFactory example) {
        RuntimeEnvironment env = new RuntimeEnvironment(CONFIG, HARDWARE);
        env.registerFactories("cpu", List.of(new CpuEpFactory()), false);
        env.registerFactories("example", List.of(example), true);
        return env;
    }

    private static List<EpDevice> devices(Environment env, String ep) {
        return env.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
    }

    private static SessionOptions options(Environment env, String delay) {
        SessionOptions o = new SessionOptions().intraOpThreads(1)
                .graphOptimizationLevel(GraphOptimizationLevel.DISABLE_ALL);
        o.appendExecutionProvider(devices(env, ExampleEpFactory.NAME), Map.of(ExampleEpFactory.OPTION_MEMORY,
                "device", ExampleEpFactory.OPTION_STREAM_DELAY_MS, delay));
        return o.appendExecutionProvider(devices(env, CpuEpFactory.NAME), Map.of());
    }

    @Test
    void theAsynchronousStreamGivesTheCpuEpsResultsFromSeveralThreads() throws Exception {
        OnnxModel model = split();
        List<Map<String, Tensor>> feeds = new ArrayList<>();
        List<Map<String, Tensor>> expected = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Map<String, Tensor> f = Map.of("x", Tensors.random(random, 4, 8));
            feeds.add(f);
            expected.add(ExampleRuns.runOnCpu(model, f));
        }
        ExampleEpFactory factory = new ExampleEpFactory();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (RuntimeEnvironment env = environment(factory)) {
            try (Session s = env.createSession(model.proto().toByteArray(), options(env, "3"))) {
                assertEquals(List.of(ExampleEpFactory.NAME, ExampleEpFactory.NAME, ExampleEpFactory.NAME,
                        ExampleEpFactory.NAME, "CPUExecutionProvider", ExampleEpFactory.NAME),
                        s.assignment().stream().map(NodeAssignment::ep).toList());
                assertEquals(1, factory.liveStreams(), "one stream for the session's NPU memory");
                ExampleRuns.assertClose(expected.get(0), s.run(feeds.get(0)));
                List<Callable<Integer>> jobs = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int k = t;
                    jobs.add(() -> {
                        for (int i = 0; i < 8; i++) {
                            int which = (k + i) % feeds.size();
                            ExampleRuns.assertClose(expected.get(which), s.run(feeds.get(which)));
                        }
                        return 8;
                    });
                }
                int runs = 0;
                for (Future<Integer> f : pool.invokeAll(jobs)) {
                    runs += f.get();
                }
                assertEquals(32, runs);
                assertEquals(1, factory.liveStreams());
            }
            assertEquals(0, factory.liveStreams(), "the stream was released with its session");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void workOnTheStreamIsDoneOnlyWhenANotificationSaysSo() {
        int[] released = new int[1];
        NpuStream stream = new NpuStream(50, () -> released[0]++);
        try {
            ByteBuffer block = ByteBuffer.allocateDirect(4);
            stream.compute(() -> block.putFloat(0, 42f));
            assertEquals(0f, block.getFloat(0), "queued, not yet run: the stream is 50 ms behind");
            SyncNotification done = stream.createNotification();
            done.activate();
            done.waitOnHost();
            assertEquals(42f, block.getFloat(0));
            assertEquals(2, stream.queued(), "the program, then the notification");
            stream.compute(() -> {
                throw new IllegalStateException("the NPU faulted");
            });
            SyncNotification after = stream.createNotification();
            after.activate();
            OrtexException e = assertThrows(OrtexException.class, after::waitOnHost);
            assertTrue(e.getMessage().contains("the NPU faulted"), e.getMessage());
        } finally {
            stream.close();
        }
        assertEquals(1, released[0]);
        stream.close();
        assertEquals(1, released[0], "released once");
    }

    @Test
    void aBadStreamDelayIsRefusedNamingIt() {
        try (RuntimeEnvironment env = environment(new ExampleEpFactory())) {
            OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(
                    split().proto().toByteArray(), options(env, "soon")));
            assertTrue(e.getMessage().contains("stream_delay_ms") && e.getMessage().contains("soon"),
                    e.getMessage());
        }
    }

    @Test
    void inHostMemoryTheExampleEpMakesNoStream() {
        OnnxModel model = split();
        Map<String, Tensor> feeds = Map.of("x", Tensors.random(random, 4, 8));
        ExampleEpFactory factory = new ExampleEpFactory();
        try (RuntimeEnvironment env = environment(factory);
             Session s = env.createSession(model.proto().toByteArray(), new SessionOptions()
                     .appendExecutionProvider(devices(env, ExampleEpFactory.NAME), Map.of())
                     .appendExecutionProvider(devices(env, CpuEpFactory.NAME), Map.of()))) {
            ExampleRuns.assertClose(ExampleRuns.runOnCpu(model, feeds), s.run(feeds));
            assertEquals(0, factory.liveStreams());
        }
    }
}
