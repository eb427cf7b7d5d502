package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.RunOptions;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.testing.Attributes;
import io.ortex.testing.ModelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Streams of stream-aware EPs ({@code OrtSyncStreamImpl}): two test EPs on two GPUs, each queuing its kernels and its
 * copies out of device memory on a stream of its own thread (every kernel delayed), split a model with the CPU EP.
 * The runtime creates one stream per session and device (the EP's, else its factory's), makes a value read on another
 * stream wait on the device and a value read by the host wait on the host, ends each run by flushing, waiting for and
 * notifying its streams before {@code OnRunEnd}, and releases the streams with the session; outputs equal a CPU-only
 * session's, also from several threads at once. An EP that is not stream aware gets no stream call.
 */
class StreamsTest {
    private static final float[] X = {1, -2, 3, -4, 5, -6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};

    /**
     * {@code out = Relu((x + y) * y) + x}: {@code add} on GPU 0, {@code mul} on GPU 1 (its {@code s} copied directly
     * from GPU 0), {@code relu} on the CPU, {@code add2} on GPU 0 again.
     */
    private static ModelBuilder model() {
        return TestModels.builder()
                .input("x", TestModels.FLOAT, 2, 3)
                .input("y", TestModels.FLOAT, 2, 3)
                .node("Add", "add", List.of("x", "y"), List.of("s"))
                .node("Mul", "mul", List.of("s", "y"), List.of("p"))
                .node("Relu", "relu", List.of("p"), List.of("r"))
                .node("Add", "add2", List.of("r", "x"), List.of("out"))
                .output("out", TestModels.FLOAT, 2, 3);
    }

    private static Map<String, Tensor> feeds(float[] x, float[] y) {
        return Map.of("x", Tensor.ofFloats(x.clone(), 2, 3), "y", Tensor.ofFloats(y.clone(), 2, 3));
    }

    private static float[] onCpu(float[] x, float[] y) {
        return DeviceTestEpFactory.onCpuAlone(model().bytes(), feeds(x, y)).get("out").floats();
    }

    /** Two stream EPs, A on GPU 0 (Add) and B on GPU 1 (Mul), and the CPU EP. */
    private record Setup(RuntimeEnvironment env, StreamEp a, StreamEp b, List<String> log) implements AutoCloseable {
        static Setup create() {
            List<String> log = StreamEp.newLog();
            StreamEp a = new StreamEp("A", 0, log, "Add");
            StreamEp b = new StreamEp("B", 1, log, "Mul");
            b.epCreatesStream = false;
            RuntimeEnvironment env =
                    DeviceTestEpFactory.environment(List.of(StreamEp.gpu(0), StreamEp.gpu(1)), a, b);
            return new Setup(env, a, b, log);
        }

        Session session() {
            return env.createSession(model().bytes(), new SessionOptions()
                    .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "A"), Map.of())
                    .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "B"), Map.of()));
        }

        @Override
        public void close() {
            env.close();
        }
    }

    @Test
    void aRunQueuesOnStreamsWaitsWhereAnotherStreamOrTheHostReadsAndSynchronizesAtItsEnd() {
        float[] expected = onCpu(X, Y);
        try (Setup t = Setup.create()) {
            try (Session s = t.session()) {
                assertEquals(List.of("A", "B", "CPUExecutionProvider", "A"),
                        s.assignment().stream().map(NodeAssignment::ep).toList());
                assertEquals(List.of("A.createStream(ep)", "B.createStream(factory)"), List.copyOf(t.log()),
                        "one stream per session and device: A's EP makes its own, B falls back to its factory");
                t.log().clear();
                Tensor out = s.run(feeds(X, Y)).get("out");
                assertArrayEquals(expected, out.floats());
                assertEquals(List.of(
                        "A.onRunStart", "B.onRunStart",
                        "copy:Cpu->Gpu0@A", "copy:Cpu->Gpu0@A", "A.queue(Add)",
                        // s is read on B's stream: A notifies, B's stream waits on the device, then copies directly
                        "A.activate", "A.waitOnDevice(B)", "copy:Gpu0->Gpu1@B", "copy:Cpu->Gpu1@B", "B.queue(Mul)",
                        // p goes to the host on B's stream; the CPU's Relu waits on the host
                        "copy:Gpu1->Cpu@B", "B.activate", "B.waitOnHost",
                        "copy:Cpu->Gpu0@A", "A.queue(Add)",
                        // the output is copied on A's stream and waited for before the caller gets it
                        "copy:Gpu0->Cpu@A", "A.activate", "A.waitOnHost",
                        "A.flush", "A.activate", "A.waitOnHost", "A.onSessionRunEnd",
                        "B.flush", "B.activate", "B.waitOnHost", "B.onSessionRunEnd",
                        "A.onRunEnd(true)", "B.onRunEnd(true)"), List.copyOf(t.log()));
                assertEquals(0, t.a().liveBlocks() + t.b().liveBlocks(), "every device block given back");
                t.log().clear();
                s.run(feeds(X, Y), List.of("out"), new RunOptions()
                        .config(RunOptions.DISABLE_SYNCHRONIZE_EXECUTION_PROVIDERS, "1"));
                assertTrue(t.log().containsAll(List.of("A.onRunEnd(false)", "B.onRunEnd(false)")), t.log().toString());
                t.log().clear();
            }
            List<String> closing = List.copyOf(t.log());
            assertEquals(List.of("A.activate", "A.waitOnHost", "A.releaseStream", "B.activate", "B.waitOnHost",
                    "B.releaseStream", "A.releaseEp", "B.releaseEp"), closing,
                    "the streams are waited for and released before their EPs");
            assertEquals(0, t.a().liveStreams.get() + t.b().liveStreams.get());
        }
    }

    @Test
    void withoutTheWaitsTheHostReadsValuesTheStreamsHaveNotWrittenYet() {
        float[] expected = onCpu(X, Y);
        try (Setup t = Setup.create()) {
            t.a().skipWaits = true;
            t.b().skipWaits = true;
            t.a().delayMillis = 50;
            t.b().delayMillis = 50;
            try (Session s = t.session()) {
                float[] got = s.run(feeds(X, Y)).get("out").floats();
                assertFalse(Arrays.equals(expected, got), "a run without waits must not give the right "
                        + "output, or the test of the waits proves nothing: " + Arrays.toString(got));
            }
        }
    }

    @Test
    void concurrentRunsOnSharedAndOwnSessionsGiveTheCpuResults() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try (Setup t = Setup.create()) {
            t.a().delayMillis = 0;
            t.b().delayMillis = 0;
            try (Session shared = t.session()) {
                List<Callable<Integer>> jobs = new ArrayList<>();
                for (int k = 0; k < 6; k++) {
                    boolean own = k % 2 == 0;
                    int seed = k;
                    jobs.add(() -> {
                        int checked = 0;
                        Session s = own ? t.session() : shared;
                        try {
                            for (int i = 0; i < 20; i++) {
                                float[] x = X.clone();
                                x[i % x.length] += seed + i;
                                float[] y = Y.clone();
                                y[(i + seed) % y.length] -= i;
                                assertArrayEquals(onCpuFast(x, y), s.run(feeds(x, y)).get("out").floats());
                                checked++;
                            }
                        } finally {
                            if (own) {
                                s.close();
                            }
                        }
                        return checked;
                    });
                }
                int total = 0;
                for (Future<Integer> f : pool.invokeAll(jobs)) {
                    total += f.get();
                }
                assertEquals(120, total);
                assertEquals(2, t.a().liveStreams.get() + t.b().liveStreams.get(), "the shared session's two");
            }
            assertEquals(0, t.a().liveStreams.get() + t.b().liveStreams.get(), "every stream released");
            assertEquals(0, t.a().liveBlocks() + t.b().liveBlocks(), "every device block given back");
            assertEquals(8, t.log().stream().filter(e -> e.endsWith(".releaseStream")).count(),
                    "two streams for each of the four sessions");
        } finally {
            pool.shutdownNow();
        }
    }

    /** What the model computes, written out. */
    private static float[] onCpuFast(float[] x, float[] y) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = Math.max(0f, (x[i] + y[i]) * y[i]) + x[i];
        }
        return out;
    }

    /** {@code Loop} three times over {@code v = v + x} on GPU 0, each step's {@code Relu(v)} on the CPU. */
    private static ModelBuilder loopModel() {
        var body = new ModelBuilder().input("i", ElementType.INT64).input("cin", ElementType.BOOL)
                .input("v", TestModels.FLOAT, 2, 3)
                .node("Identity", "keep_going", List.of("cin"), List.of("cout"))
                .node("Add", "body_add", List.of("v", "x"), List.of("vout"))
                .node("Relu", "body_relu", List.of("vout"), List.of("scan_out"))
                .output("cout", ElementType.BOOL).output("vout", TestModels.FLOAT, 2, 3)
                .output("scan_out", TestModels.FLOAT, 2, 3)
                .proto().getGraph().toBuilder().setName("body").build();
        return new ModelBuilder().opset(17).input("x", TestModels.FLOAT, 2, 3).input("v0", TestModels.FLOAT, 2, 3)
                .longs("M", new long[] {3}).initializer("go", Tensor.ofBooleans(new boolean[] {true}))
                .node("Loop", "loop", List.of("M", "go", "v0"), List.of("v", "trace"), Attributes.attr("body", body))
                .output("v", TestModels.FLOAT, 2, 3).output("trace", TestModels.FLOAT, 3, 2, 3);
    }

    @Test
    void aLoopBodyRunOnAStreamGivesTheCpuResults() {
        Map<String, Tensor> feeds = Map.of("x", Tensor.ofFloats(X.clone(), 2, 3),
                "v0", Tensor.ofFloats(Y.clone(), 2, 3));
        Map<String, Tensor> expected = DeviceTestEpFactory.onCpuAlone(loopModel().bytes(), feeds);
        try (Setup t = Setup.create();
             Session s = t.env().createSession(loopModel().bytes(), new SessionOptions()
                     .appendExecutionProvider(LibraryRegistrationTest.devicesOf(t.env(), "A"), Map.of()))) {
            assertTrue(s.assignment().stream().anyMatch(a -> a.node().endsWith("body_add") && a.ep().equals("A")),
                    s.assignment().toString());
            for (int run = 0; run < 3; run++) {
                Map<String, Tensor> out = s.run(feeds);
                assertArrayEquals(expected.get("v").floats(), out.get("v").floats());
                assertArrayEquals(expected.get("trace").floats(), out.get("trace").floats());
                assertEquals(0, t.a().liveBlocks(), "the body's device blocks given back at the run's end");
            }
            assertTrue(t.log().contains("A.waitOnHost"), t.log().toString());
        }
    }

    @Test
    void workThatFailsOnAStreamFailsTheRunNamingWhatWasWaitedFor() {
        try (Setup t = Setup.create()) {
            try (Session s = t.session()) {
                t.b().failWork = true;
                OrtexException e = assertThrows(OrtexException.class, () -> s.run(feeds(X, Y)));
                assertTrue(e.getMessage().contains("waiting for 'p@Cpu' before partition")
                        && e.getMessage().contains("B device fault in Mul"), e.getMessage());
                assertEquals(0, t.a().liveBlocks() + t.b().liveBlocks(), "the failed run's blocks given back");
                assertTrue(t.log().contains("B.onRunEnd(true)"), "the run still ended: " + t.log());
                t.b().failWork = false;
                assertArrayEquals(onCpuFast(X, Y), s.run(feeds(X, Y)).get("out").floats(), "the next run is fine");
            }
        }
    }

    @Test
    void anEpThatIsNotStreamAwareGetsNoStreamCallAndComputesAtOnce() {
        float[] expected = onCpu(X, Y);
        assertArrayEquals(expected, onCpuFast(X, Y));
        try (Setup t = Setup.create()) {
            t.a().streamAware = false;
            t.b().streamAware = false;
            try (Session s = t.session()) {
                assertArrayEquals(expected, s.run(feeds(X, Y)).get("out").floats());
            }
            List<String> streamCalls = t.log().stream().filter(e -> e.contains("Stream") || e.contains("activate")
                    || e.contains("wait") || e.contains("flush") || e.contains("onSessionRunEnd")
                    || e.contains("queue") || e.contains("@")).toList();
            assertEquals(List.of(), streamCalls);
            assertTrue(t.log().contains("A.onRunEnd(true)"), t.log().toString());
            assertEquals(0, t.a().liveBlocks() + t.b().liveBlocks());
        }
    }

    @Test
    void aStreamAwareFactoryThatMakesNoStreamFailsTheSessionNamingIt() {
        try (Setup t = Setup.create()) {
            t.b().noStream = true;
            OrtexException e = assertThrows(OrtexException.class, t::session);
            assertTrue(e.getMessage().contains("EP factory B is stream aware, but neither EP B nor its factory created"
                    + " a stream for memory"), e.getMessage());
            assertEquals(0, t.a().liveStreams.get(), "A's stream, made first, was released");
            assertTrue(t.log().contains("A.releaseEp") && t.log().contains("B.releaseEp"), t.log().toString());
        }
    }

    @Test
    void removingALibraryWaitsForItsSessionsToReleaseTheirStreams() {
        List<String> log = StreamEp.newLog();
        StreamEp a = new StreamEp("A", 0, log, "Add", "Mul");
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(StreamEp.gpu(0),
                TestDevices.CPU), List.of(new CpuEpFactory()))) {
            env.registerFactories("streams", List.of(a), false);
            Session s = env.createSession(model().bytes(), new SessionOptions()
                    .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "A"), Map.of()));
            assertArrayEquals(onCpuFast(X, Y), s.run(feeds(X, Y)).get("out").floats());
            assertEquals(1, a.liveStreams.get());
            env.withdrawLibrary("streams", Duration.ofMillis(200), true);
            assertEquals(0, a.liveStreams.get(), "the session was failed, closed, and its stream released");
            assertTrue(log.indexOf("A.releaseStream") < log.indexOf("A.releaseEp"), log.toString());
            assertThrows(EpUnavailableException.class, () -> s.run(feeds(X, Y)));
            s.close();
        }
    }
}
