package io.ortex.ep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorComparison;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ONNX Runtime EP in a real environment (found through {@code META-INF/services} beside the CPU and example EPs):
 * its device, what it claims and leaves to the CPU EP, its options, and its outputs against ONNX Runtime run
 * directly.
 */
class OrtExecutionProviderTest {
    static Environment env;

    @BeforeAll
    static void environment() {
        env = Environment.create();
    }

    @AfterAll
    static void close() {
        env.close();
    }

    static List<EpDevice> ort() {
        return env.epDevices().stream().filter(d -> d.epName().equals(OrtEpFactory.NAME)).toList();
    }

    static SessionOptions onOrt() {
        return new SessionOptions().appendExecutionProvider(ort(), Map.of());
    }

    static Map<String, String> assignment(Session s) {
        Map<String, String> m = new TreeMap<>();
        for (NodeAssignment a : s.assignment()) {
            m.put(a.node(), a.ep());
        }
        return m;
    }

    @Test
    void offersOnnxRuntimesCpuDeviceWithItsVersionAndVendor() {
        List<EpDevice> devices = ort();
        assertEquals(1, devices.size(), env.epDevices().toString());
        EpDevice d = devices.get(0);
        assertEquals(OrtRuntime.version(), d.version());
        assertEquals("Microsoft", d.epVendor());
        assertEquals("CPUExecutionProvider", d.epMetadata().get(OrtDevices.ORT_EP_NAME));
        assertEquals(env.hardwareDevices().stream().filter(h -> h.type() == d.device().type()).findFirst()
                .orElseThrow(), d.device(), "the device is the environment's own CPU");
    }

    @Test
    void runsAWholeModelAsOnePartitionLikeOnnxRuntimeItself() throws Exception {
        Map<String, Tensor> in = Map.of("x", Models.randomTensor(5, 7, 4));
        try (Session s = env.createSession(Models.layer(), onOrt())) {
            assertEquals(List.of(OrtEpFactory.NAME, "CPUExecutionProvider"), s.executionProviders());
            assertEquals(Map.of("add", OrtEpFactory.NAME, "mm", OrtEpFactory.NAME, "relu", OrtEpFactory.NAME),
                    assignment(s));
            Tensor ours = s.run(in).get("out");
            Tensor theirs = OrtDirect.run(Models.layer(), in, 1).get("out");
            assertNull(TensorComparison.difference(theirs, ours, 0, 1e-6));
        }
    }

    @Test
    void leavesANodeOnnxRuntimeCannotRunToTheCpuEp() throws Exception {
        float[] x = {1, -2, 3, 4, -5, 6};
        float[] y = {0, 1, 5, -4, 2, 6};
        try (Session s = env.createSession(Models.int8Where(), onOrt())) {
            Map<String, String> where = assignment(s);
            assertEquals("CPUExecutionProvider", where.get("where"), where.toString());
            for (String n : List.of("gt", "cx", "cy", "back", "relu")) {
                assertEquals(OrtEpFactory.NAME, where.get(n), n + " in " + where);
            }
            float[] out = s.run(Map.of("x", Tensor.ofFloats(x, 2, 3), "y", Tensor.ofFloats(y, 2, 3)))
                    .get("out").floats();
            for (int i = 0; i < x.length; i++) {
                assertEquals(Math.max(0, x[i] > y[i] ? x[i] : y[i]), out[i], "element " + i);
            }
        }
    }

    @Test
    void aRefusalThatNamesNoNodeIsNarrowedDown() throws Exception {
        // ONNX Runtime's GRU refuses layout=1 in its constructor, with a message that names no node
        int hidden = 3;
        GraphProto g = GraphProto.newBuilder().setName("gru")
                .addInput(Models.value("x", Models.FLOAT, 1, 2, 4))
                .addOutput(Models.value("y", Models.FLOAT, 1, 2, 1, hidden))
                .addInitializer(Models.floats("W", Models.randomFloats(3 * hidden * 4, 1), 1, 3 * hidden, 4))
                .addInitializer(Models.floats("R", Models.randomFloats(3 * hidden * hidden, 2), 1, 3 * hidden,
                        hidden))
                .addNode(Models.node("relu", "Relu", "x", "r"))
                .addNode(Models.node("gru", "GRU", "r,W,R", "y", Models.intAttr("layout", 1),
                        Models.intAttr("hidden_size", hidden)))
                .build();
        try (Session s = env.createSession(Models.model(g, 17), onOrt())) {
            assertEquals(Map.of("gru", "CPUExecutionProvider", "relu", OrtEpFactory.NAME), assignment(s));
            assertEquals(List.of(1L, 2L, 1L, 3L), toList(s.run(Map.of("x", Models.randomTensor(3, 1, 2, 4)))
                    .get("y").shape()));
        }
    }

    @Test
    void aPartitionWhoseResultsNobodyReadsIsNotRun() throws Exception {
        GraphProto g = GraphProto.newBuilder().setName("dead")
                .addInput(Models.value("x", Models.FLOAT, 2, 3))
                .addOutput(Models.value("y", Models.FLOAT, 2, 3))
                .addNode(Models.node("relu", "Relu", "x", "y"))
                .addNode(Models.node("unused", "Neg", "x", "nobody"))
                .build();
        // the runtime's own optimizations would remove the unused node before the EPs see it
        try (Session s = env.createSession(Models.model(g, 17),
                onOrt().graphOptimizationLevel(io.ortex.api.GraphOptimizationLevel.DISABLE_ALL))) {
            assertEquals(Map.of("relu", OrtEpFactory.NAME, "unused", OrtEpFactory.NAME), assignment(s));
            float[] y = s.run(Map.of("x", Tensor.ofFloats(new float[] {-1, 2, -3, 4, -5, 6}, 2, 3))).get("y")
                    .floats();
            assertEquals(List.of(0f, 2f, 0f, 4f, 0f, 6f), List.of(y[0], y[1], y[2], y[3], y[4], y[5]));
        }
    }

    @Test
    void weightsInAnExternalFileStayThereAndAreReadByOnnxRuntime(@TempDir Path dir) throws Exception {
        float[] w = Models.randomFloats(12, 8);
        java.nio.ByteBuffer data = java.nio.ByteBuffer.allocate(48).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        data.asFloatBuffer().put(w);
        Files.write(dir.resolve("weights.bin"), data.array());
        TensorProto external = TensorProto.newBuilder().setName("W").setDataType(Models.FLOAT).addDims(4).addDims(3)
                .setDataLocation(TensorProto.DataLocation.EXTERNAL)
                .addExternalData(StringStringEntryProto.newBuilder().setKey("location").setValue("weights.bin"))
                .build();
        GraphProto g = GraphProto.newBuilder().setName("external")
                .addInput(Models.value("x", Models.FLOAT, 2, 4))
                .addOutput(Models.value("y", Models.FLOAT, 2, 3))
                .addInitializer(external)
                .addNode(Models.node("mm", "MatMul", "x,W", "y"))
                .build();
        Path model = dir.resolve("external.onnx");
        Files.write(model, Models.model(g, 17));
        Tensor x = Models.randomTensor(2, 2, 4);
        float[] want = new float[6];
        for (int r = 0; r < 2; r++) {
            for (int c = 0; c < 3; c++) {
                for (int k = 0; k < 4; k++) {
                    want[r * 3 + c] += x.floats()[r * 4 + k] * w[k * 3 + c];
                }
            }
        }
        try (Session s = env.createSession(model, onOrt())) {
            assertEquals(Map.of("mm", OrtEpFactory.NAME), assignment(s));
            float[] y = s.run(Map.of("x", x)).get("y").floats();
            for (int i = 0; i < 6; i++) {
                assertEquals(want[i], y[i], 1e-5f, "element " + i);
            }
        }
    }

    private static List<Long> toList(long[] a) {
        return java.util.Arrays.stream(a).boxed().toList();
    }

    @Test
    void takesWhatAnEarlierEpLeftAndSplitsAroundIt() throws Exception {
        try (Environment virtual = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
             Session s = virtual.createSession(Models.int8Where(),
                     new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
            assertEquals(List.of("ExampleExecutionProvider", OrtEpFactory.NAME, "CPUExecutionProvider"),
                    s.executionProviders());
            Map<String, String> where = assignment(s);
            assertEquals("CPUExecutionProvider", where.get("where"), where.toString());
            assertEquals(OrtEpFactory.NAME, where.get("gt"), where.toString());
        }
        byte[] layer = Models.layerSoftmax();
        Map<String, Tensor> in = Map.of("x", Models.randomTensor(9, 2, 4));
        try (Environment virtual = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"));
             Session s = virtual.createSession(layer,
                     new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
            assertEquals(Map.of("mm", "ExampleExecutionProvider", "add", "ExampleExecutionProvider",
                    "relu", "ExampleExecutionProvider", "softmax", OrtEpFactory.NAME), assignment(s));
            assertNull(TensorComparison.difference(OrtDirect.run(layer, in, 1).get("out"), s.run(in).get("out"),
                    1e-5, 1e-6));
        }
    }

    @Test
    void policiesPreferItOverTheBuiltInCpuEpAndNoPolicyKeepsTheBuiltIn() {
        try (Session s = env.createSession(Models.layer(), new SessionOptions())) {
            assertEquals(List.of("CPUExecutionProvider"), s.executionProviders());
        }
        for (ExecutionProviderDevicePolicy p : List.of(ExecutionProviderDevicePolicy.DEFAULT,
                ExecutionProviderDevicePolicy.PREFER_CPU, ExecutionProviderDevicePolicy.MAX_PERFORMANCE)) {
            try (Session s = env.createSession(Models.layer(), new SessionOptions().selectionPolicy(p))) {
                assertEquals(List.of(OrtEpFactory.NAME, "CPUExecutionProvider"), s.executionProviders(), p.name());
            }
        }
    }

    @Test
    void optionsMapToOnnxRuntimeAndBadOnesNameTheKey() throws Exception {
        Map<String, Tensor> in = Map.of("x", Models.randomTensor(5, 3, 4));
        Tensor reference = OrtDirect.run(Models.layer(), in, 1).get("out");
        Map<String, String> options = new LinkedHashMap<>();
        options.put("intra_op_num_threads", "2");
        options.put("graph_optimization_level", "basic");
        options.put("execution_mode", "parallel");
        options.put("session.intra_op.allow_spinning", "0");
        try (Session s = env.createSession(Models.layer(), new SessionOptions().appendExecutionProvider(ort(),
                options))) {
            assertNull(TensorComparison.difference(reference, s.run(in).get("out"), 0, 1e-6));
        }
        InvalidArgumentException level = assertThrows(InvalidArgumentException.class, () -> env.createSession(
                Models.layer(), new SessionOptions().appendExecutionProvider(ort(),
                        Map.of("graph_optimization_level", "fastest"))));
        assertTrue(level.getMessage().contains("ep.ortexecutionprovider.graph_optimization_level"),
                level.getMessage());
        InvalidArgumentException unknown = assertThrows(InvalidArgumentException.class, () -> env.createSession(
                Models.layer(), new SessionOptions().appendExecutionProvider(ort(), Map.of("threads", "2"))));
        assertTrue(unknown.getMessage().contains("unknown option 'ep.ortexecutionprovider.threads'"),
                unknown.getMessage());
        InvalidArgumentException threads = assertThrows(InvalidArgumentException.class, () -> env.createSession(
                Models.layer(), new SessionOptions().appendExecutionProvider(ort(),
                        Map.of("intra_op_num_threads", "-1"))));
        assertTrue(threads.getMessage().contains("intra_op_num_threads"), threads.getMessage());
    }

    @Test
    void runsConcurrentlyFromManyThreads() throws Exception {
        try (Session s = env.createSession(Models.layer(), onOrt())) {
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                List<Future<Boolean>> runs = new java.util.ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    int seed = t;
                    runs.add(pool.submit(() -> {
                        for (int i = 0; i < 50; i++) {
                            Map<String, Tensor> in = Map.of("x", Models.randomTensor(seed * 100 + i, 1 + i % 5, 4));
                            Tensor want = OrtDirect.run(Models.layer(), in, 1).get("out");
                            if (TensorComparison.difference(want, s.run(in).get("out"), 0, 1e-6) != null) {
                                return false;
                            }
                        }
                        return true;
                    }));
                }
                for (Future<Boolean> f : runs) {
                    assertTrue(f.get());
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
