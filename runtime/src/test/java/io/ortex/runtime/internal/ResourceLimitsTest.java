package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.ResourceLimitException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.testing.ModelBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every resource limit refuses what is beyond it before allocating, naming its key; limits come from the session's
 * entries, else the environment's; a run refused for memory leaves the session usable.
 */
class ResourceLimitsTest {

    private static RuntimeEnvironment env(Map<String, String> config) {
        return new RuntimeEnvironment(config, List.of(CPU), List.of(new CpuEpFactory()));
    }

    private static SessionOptions limit(String key, long value) {
        return new SessionOptions().config(key, Long.toString(value));
    }

    /** A model beyond a limit is an invalid model whose message names the limit's key. */
    private static InvalidModelException refused(String key, Executable open) {
        InvalidModelException e = assertThrows(InvalidModelException.class, open);
        assertTrue(e.getMessage().contains(key), e.getMessage());
        return e;
    }

    /** {@code y = ConstantOfShape(shape)}: a float tensor of the shape given as input. */
    private static byte[] constantOfShape() {
        return TestModels.builder()
                .input("shape", TestModels.INT64, 2)
                .node("ConstantOfShape", "filler", List.of("shape"), List.of("y"))
                .output("y", TestModels.FLOAT, -1, -1)
                .bytes();
    }

    private static ModelProto model(GraphProto.Builder graph) {
        return ModelProto.newBuilder().setIrVersion(8)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17)).setGraph(graph).build();
    }

    @Test
    void modelBytes() {
        byte[] bytes = TestModels.addMulRelu().bytes();
        try (RuntimeEnvironment env = env(Map.of())) {
            refused(ResourceLimits.MODEL_BYTES, () -> env.createSession(bytes,
                    limit(ResourceLimits.MODEL_BYTES, bytes.length - 1)));
            env.createSession(bytes, limit(ResourceLimits.MODEL_BYTES, bytes.length)).close();
        }
    }

    @Test
    void graphNodesFromTheEnvironmentUnlessTheSessionSaysOtherwise() {
        byte[] bytes = TestModels.addMulRelu().bytes();
        try (RuntimeEnvironment env = env(Map.of(ResourceLimits.GRAPH_NODES, "2"))) {
            InvalidModelException e = refused(ResourceLimits.GRAPH_NODES,
                    () -> env.createSession(bytes, new SessionOptions()));
            assertEquals(ErrorCode.INVALID_GRAPH, e.code());
            env.createSession(bytes, limit(ResourceLimits.GRAPH_NODES, 3)).close();
            env.limitDefaults(Map.of());
            env.createSession(bytes, new SessionOptions()).close();
        }
    }

    @Test
    void tensorElementsAndInitializerBytes() {
        byte[] bytes = TestModels.builder()
                .input("x", TestModels.FLOAT, 100)
                .floats("a", new long[] {100}, new float[100])
                .floats("b", new long[] {100}, new float[100])
                .node("Add", "add", List.of("x", "a"), List.of("s"))
                .node("Add", "add2", List.of("s", "b"), List.of("out"))
                .output("out", TestModels.FLOAT, 100)
                .bytes();
        try (RuntimeEnvironment env = env(Map.of())) {
            InvalidModelException e = refused(ResourceLimits.TENSOR_ELEMENTS,
                    () -> env.createSession(bytes, limit(ResourceLimits.TENSOR_ELEMENTS, 99)));
            assertTrue(e.getMessage().contains("initializer 'a'"), e.getMessage());
            e = refused(ResourceLimits.INITIALIZER_BYTES,
                    () -> env.createSession(bytes, limit(ResourceLimits.INITIALIZER_BYTES, 799)));
            assertTrue(e.getMessage().contains("initializer 'b'"), e.getMessage());
            env.createSession(bytes, limit(ResourceLimits.INITIALIZER_BYTES, 800)).close();
        }
    }

    @Test
    void stringLength() {
        String longName = "n".repeat(100);
        byte[] bytes = TestModels.builder()
                .input("x", TestModels.FLOAT, 2)
                .node("Relu", longName, List.of("x"), List.of("out"))
                .output("out", TestModels.FLOAT, 2)
                .bytes();
        try (RuntimeEnvironment env = env(Map.of())) {
            InvalidModelException e = refused(ResourceLimits.STRING_LENGTH,
                    () -> env.createSession(bytes, limit(ResourceLimits.STRING_LENGTH, 99)));
            assertTrue(e.getMessage().contains("a node name has 100 characters"), e.getMessage());
            env.createSession(bytes, limit(ResourceLimits.STRING_LENGTH, 100)).close();
        }
    }

    @Test
    void nestingDepth() {
        // If(cond) { If(cond) { Identity(x) } }: two levels of subgraphs
        GraphProto inner = GraphProto.newBuilder().setName("inner")
                .addNode(NodeProto.newBuilder().setOpType("Identity").setName("id").addInput("x").addOutput("r"))
                .addOutput(ModelBuilder.valueInfo("r", TestModels.FLOAT, 2)).build();
        GraphProto middle = GraphProto.newBuilder().setName("middle")
                .addNode(ifNode("inner_if", inner, "m"))
                .addOutput(ModelBuilder.valueInfo("m", TestModels.FLOAT, 2)).build();
        GraphProto.Builder main = GraphProto.newBuilder().setName("main")
                .addInput(ModelBuilder.valueInfo("cond", ElementType.BOOL, new long[0]))
                .addInput(ModelBuilder.valueInfo("x", TestModels.FLOAT, 2))
                .addNode(ifNode("outer_if", middle, "y"))
                .addOutput(ModelBuilder.valueInfo("y", TestModels.FLOAT, 2));
        byte[] bytes = model(main).toByteArray();
        try (RuntimeEnvironment env = env(Map.of())) {
            refused(ResourceLimits.NESTING_DEPTH, () -> env.createSession(bytes,
                    limit(ResourceLimits.NESTING_DEPTH, 1)));
            try (Session s = env.createSession(bytes, limit(ResourceLimits.NESTING_DEPTH, 2))) {
                Tensor y = s.run(Map.of("cond", Tensor.ofBooleans(new boolean[] {true}),
                        "x", Tensor.ofFloats(new float[] {1, 2}, 2))).get("y");
                assertArrayEquals(new float[] {1, 2}, y.floats());
            }
        }
    }

    private static NodeProto ifNode(String name, GraphProto branch, String output) {
        return NodeProto.newBuilder().setOpType("If").setName(name).addInput("cond").addOutput(output)
                .addAttribute(AttributeProto.newBuilder().setName("then_branch")
                        .setType(AttributeProto.AttributeType.GRAPH).setG(branch))
                .addAttribute(AttributeProto.newBuilder().setName("else_branch")
                        .setType(AttributeProto.AttributeType.GRAPH).setG(branch))
                .build();
    }

    @Test
    void runBytesRefuseAnOutputBeforeItIsAllocatedAndTheSessionStaysUsable() {
        try (RuntimeEnvironment env = env(Map.of());
             Session s = env.createSession(constantOfShape(), limit(ResourceLimits.RUN_BYTES, 1_000_000))) {
            ResourceLimitException e = assertThrows(ResourceLimitException.class,
                    () -> s.run(Map.of("shape", Tensor.ofLongs(new long[] {1000, 1000}, 2))));
            assertEquals(ResourceLimits.RUN_BYTES, e.limitKey());
            assertEquals(ErrorCode.RUNTIME_EXCEPTION, e.code());
            assertTrue(e.getMessage().contains("node 'filler' (ConstantOfShape)"), e.getMessage());
            Tensor y = s.run(Map.of("shape", Tensor.ofLongs(new long[] {10, 10}, 2))).get("y");
            assertArrayEquals(new long[] {10, 10}, y.shape());
        }
    }

    @Test
    void anOutputLargerThanTheHeapIsRefusedWithoutConfiguration() {
        // the probe's ConstantOfShape [40000, 40000]: 6.4 GB of float32, under the array limit; on a JVM whose heap
        // holds that, the smallest float32 tensor it does not hold
        long heap = Runtime.getRuntime().maxMemory();
        long[] shape = 40_000L * 40_000 * 4 > heap ? new long[] {40_000, 40_000} : new long[] {heap / 4 + 1, 1};
        org.junit.jupiter.api.Assumptions.assumeTrue(shape[0] * shape[1] <= Tensor.MAX_ELEMENTS,
                "a heap above 8 GB holds every float32 tensor Java can index");
        try (RuntimeEnvironment env = env(Map.of());
             Session s = env.createSession(constantOfShape(), new SessionOptions())) {
            ResourceLimitException e = assertThrows(ResourceLimitException.class,
                    () -> s.run(Map.of("shape", Tensor.ofLongs(shape, 2))));
            assertTrue(e.getMessage().contains("node 'filler' (ConstantOfShape)")
                    && e.getMessage().contains("maximum heap"), e.getMessage());
            assertEquals(2, s.run(Map.of("shape", Tensor.ofLongs(new long[] {1, 2}, 2))).get("y").size());
        }
    }

    @Test
    void aValueThatIsNotANumberIsRefusedNamingTheKey() {
        try (RuntimeEnvironment env = env(Map.of())) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> env.createSession(TestModels.addMulRelu().bytes(),
                            new SessionOptions().config(ResourceLimits.RUN_BYTES, "lots")));
            assertTrue(e.getMessage().contains(ResourceLimits.RUN_BYTES), e.getMessage());
        }
    }

    @Test
    void defaultsAreDocumentedValues() {
        ResourceLimits d = ResourceLimits.DEFAULTS;
        assertEquals(Integer.MAX_VALUE, d.modelBytes());
        assertEquals(Tensor.MAX_ELEMENTS, d.tensorElements());
        assertEquals(32, d.nestingDepth());
        assertEquals(1_000_000, d.graphNodes());
        assertEquals(1 << 20, d.stringLength());
        assertEquals(Runtime.getRuntime().maxMemory(), d.runBytes());
        assertEquals(Runtime.getRuntime().maxMemory(), d.initializerBytes());
    }
}
