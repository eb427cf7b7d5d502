package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.GraphView;
import io.ortex.ep.example.program.GemmAttributes;
import io.ortex.ep.example.program.Instruction;
import io.ortex.ep.example.program.MatMulAttributes;
import io.ortex.ep.example.program.OpAttributes;
import io.ortex.ep.example.program.OpCode;
import io.ortex.ep.example.program.Program;
import io.ortex.onnx.OnnxModel;
import io.ortex.testing.Attributes;
import io.ortex.testing.ModelBuilder;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What {@code compile} builds: instructions, packed weights, Relu folding, input and output order, errors. */
class ProgramCompilerTest {
    private final Random random = new Random(3);

    private OnnxModel mlp() {
        return new ModelBuilder().input("x", 2, 4)
                .initializer("w1", Tensors.random(random, 4, 8)).initializer("b1", Tensors.random(random, 8))
                .initializer("w2", Tensors.random(random, 8, 3)).initializer("b2", Tensors.random(random, 3))
                .node("MatMul", "mm1", List.of("x", "w1"), List.of("h1"))
                .node("Add", "add1", List.of("h1", "b1"), List.of("h2"))
                .node("Relu", "relu", List.of("h2"), List.of("h3"))
                .node("MatMul", "mm2", List.of("h3", "w2"), List.of("h4"))
                .node("Add", "add2", List.of("h4", "b2"), List.of("y"))
                .output("y").build();
    }

    private static Program compileWhole(OnnxModel model, boolean fuse) {
        ExampleRuns.Result compiled = ExampleRuns.compileWithExample(model, fuse);
        assertEquals(1, compiled.kernels().size(), "the runtime gave the EP one group");
        assertEquals(model.graph().nodes().size(), compiled.groups().get(0).size(), "the whole model");
        return ((ProgramKernel) compiled.kernels().get(0)).program();
    }

    /** The runtime's view of the one group the example EP claims in a model: the whole model. */
    private static GraphView groupOf(OnnxModel model) {
        ExampleRuns.Result compiled = ExampleRuns.compileWithExample(model, true);
        assertEquals(1, compiled.graphs().size());
        return compiled.graphs().get(0);
    }

    @Test
    void mlpProgramPacksWeightsAndFoldsRelu() {
        Program program = compileWhole(mlp(), true);
        assertEquals(List.of("x"), program.inputNames(), "constant initializers are not kernel inputs");
        assertEquals(List.of("y"), program.outputNames());
        assertEquals(4, program.weights().size());
        assertEquals("w1#nk", program.weights().get(0).name());
        assertArrayEquals(new long[] {8, 4}, program.weights().get(0).value().shape(), "MatMul B packed as [N, K]");
        List<Instruction> ins = program.instructions();
        assertEquals(List.of(OpCode.MATMUL, OpCode.ADD, OpCode.MATMUL, OpCode.ADD),
                ins.stream().map(Instruction::op).toList());
        assertTrue(ins.get(1).relu(), "the Relu is folded into the Add before it");
        assertEquals(new MatMulAttributes(true), ins.get(0).attributes());
        // slots: x=0, weights 1..4, instructions 5..8
        assertArrayEquals(new int[] {0, 1}, ins.get(0).inputs());
        assertArrayEquals(new int[] {5, 2}, ins.get(1).inputs());
        assertArrayEquals(new int[] {6, 3}, ins.get(2).inputs());
        assertArrayEquals(new int[] {8}, program.outputSlots());
        assertTrue(program.describe().contains("%7 = MatMul[6, 3]"), program.describe());

        Program unfused = compileWhole(mlp(), false);
        assertEquals(5, unfused.instructions().size());
        assertFalse(unfused.instructions().stream().anyMatch(Instruction::relu));
    }

    @Test
    void reluIsNotFoldedIntoAValueOthersRead() {
        OnnxModel model = new ModelBuilder().input("x", 2, 4)
                .node("Add", "add", List.of("x", "x"), List.of("a"))
                .node("Relu", "relu", List.of("a"), List.of("r"))
                .node("Mul", "mul", List.of("a", "r"), List.of("y"))
                .output("y").build();
        Program program = compileWhole(model, true);
        assertEquals(3, program.instructions().size());
        Tensor x = Tensors.random(random, 2, 4);
        Tensor y = program.run(ExampleRuns.SEQUENTIAL, new Tensor[] {x})[0];
        for (int i = 0; i < x.size(); i++) {
            float a = 2 * x.floats()[i];
            assertEquals(a * Math.max(a, 0f), y.floats()[i], 1e-6);
        }
    }

    @Test
    void gemmWeightIsPackedAndTransBSet() {
        OnnxModel model = new ModelBuilder().input("a", 3, 4).initializer("b", Tensors.random(random, 4, 5))
                .node("Gemm", "gemm", List.of("a", "b"), List.of("y"), Attributes.attr("alpha", 2f)).output("y")
                        .build();
        Program program = compileWhole(model, true);
        assertEquals(new GemmAttributes(false, true, 2f, 1f), program.instructions().get(0).attributes());
        assertArrayEquals(new long[] {5, 4}, program.weights().get(0).value().shape());
    }

    @Test
    void kernelFollowsTheFusedNodeOrder() {
        OnnxModel model = new ModelBuilder().input("a", 2, 3).input("b", 2, 3)
                .node("Add", "sum", List.of("a", "b"), List.of("s"))
                .node("Mul", "prod", List.of("s", "b"), List.of("p"))
                .output("s").output("p").build();
        GraphView view = groupOf(model);
        TestFusedNode reversed = new TestFusedNode("fused", List.of("b", "a"), List.of("p", "s"));
        ComputeKernel kernel = new ExampleExecutionProvider(true).compile(List.of(view), List.of(reversed)).get(0);
        Tensor a = Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor b = Tensor.ofFloats(new float[] {2, 2, 2, 3, 3, 3}, 2, 3);
        Tensor[] out = kernel.compute(ExampleRuns.SEQUENTIAL, new Tensor[] {b, a});
        assertArrayEquals(new float[] {6, 8, 10, 21, 24, 27}, out[0].floats());
        assertArrayEquals(new float[] {3, 4, 5, 7, 8, 9}, out[1].floats());
    }

    @Test
    void runtimeShapeErrorsNameTheFusedNode() {
        OnnxModel model = new ModelBuilder().input("a", -1, 4).initializer("b", Tensors.random(random, 4, 5))
                .node("MatMul", "mm", List.of("a", "b"), List.of("y")).output("y").build();
        GraphView view = groupOf(model);
        ComputeKernel kernel = new ExampleExecutionProvider(true).compile(List.of(view),
                List.of(TestFusedNode.of("example_0", view))).get(0);
        OrtexException e = assertThrows(OrtexException.class, () -> kernel.compute(ExampleRuns.SEQUENTIAL,
                new Tensor[] {Tensors.random(random, 2, 3)}));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().startsWith("example_0: MatMul: inner dimensions differ"), e.getMessage());
    }

    @Test
    void valuesFromNowhereAreCompileErrors() {
        OnnxModel model = new ModelBuilder().input("a", 2).input("b", 2)
                .node("Add", "add", List.of("a", "b"), List.of("y")).output("y").build();
        GraphView view = groupOf(model);
        TestFusedNode missingB = new TestFusedNode("fused", List.of("a"), List.of("y"));
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> new ExampleExecutionProvider(true).compile(List.of(view), List.of(missingB)));
        assertTrue(e.getMessage().contains("'b'") && e.getMessage().contains("node 'add'"), e.getMessage());
        TestFusedNode unknownOutput = new TestFusedNode("fused", List.of("a", "b"), List.of("z"));
        assertThrows(InvalidModelException.class,
                () -> new ExampleExecutionProvider(true).compile(List.of(view), List.of(unknownOutput)));
    }

    @Test
    void programRejectsForwardReferences() {
        Instruction readsItself = new Instruction(OpCode.RELU, OpAttributes.NONE, new int[] {1}, false);
        assertThrows(IllegalArgumentException.class, () -> new Program(List.of("x"), List.of(),
                List.of(readsItself), List.of("y"), new int[] {1}));
        Program ok = new Program(List.of("x"), List.of(),
                List.of(new Instruction(OpCode.RELU, OpAttributes.NONE, new int[] {0}, false)), List.of("y"),
                new int[] {1});
        Tensor y = ok.run(ExampleRuns.SEQUENTIAL, new Tensor[] {Tensor.ofFloats(new float[] {-1, 2}, 2)})[0];
        assertArrayEquals(new float[] {0, 2}, y.floats());
        assertThrows(OrtexException.class, () -> ok.run(ExampleRuns.SEQUENTIAL,
                new Tensor[] {Tensor.ofDoubles(new double[] {1}, 1)}));
    }

    @Test
    void opCodesAreStable() {
        for (OpCode op : OpCode.values()) {
            assertEquals(op, OpCode.fromCode(op.code()));
            assertEquals(op, op == OpCode.CONV_NHWC ? OpCode.forNode(DataLayout.NHWC_DOMAIN, "Conv")
                    : OpCode.forOnnx(op.onnxName()));
        }
        assertEquals(Map.of(1, "MatMul", 6, "Conv", 7, "Conv"), Map.of(OpCode.MATMUL.code(), "MatMul",
                OpCode.CONV.code(), "Conv", OpCode.CONV_NHWC.code(), "Conv"));
        assertEquals(OpCode.CONV, OpCode.forNode("", "Conv"));
        assertEquals(null, OpCode.forNode(DataLayout.NHWC_DOMAIN, "Relu"));
    }
}
