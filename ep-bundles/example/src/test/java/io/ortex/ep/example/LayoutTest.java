package io.ortex.ep.example;

import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Tensor;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.LayoutConversion;
import io.ortex.api.spi.NodeView;
import io.ortex.onnx.OnnxModel;
import io.ortex.testing.ModelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The example EP's layout preference through the real runtime: it prefers NHWC, so its Conv nodes reach it in the NHWC
 * domain and run channels last, with only the transposes at the ends of a Conv chain left to the CPU EP, and the
 * results are the CPU EP's NCHW ones; with {@code layout=NCHW} the graph is left as ONNX has it.
 */
class LayoutTest {
    private final Random random = new Random(5);

    /** {@code y = Conv(Relu(Conv(x)))}, grouped and strided, then a 1-D one to check rank 3. */
    private OnnxModel convReluConv() {
        return new ModelBuilder().input("x", 2, 4, 9, 7)
                .initializer("w1", Tensors.random(random, 6, 2, 3, 3)).initializer("b1", Tensors.random(random, 6))
                .initializer("w2", Tensors.random(random, 5, 6, 2, 3))
                .node("Conv", "conv1", List.of("x", "w1", "b1"), List.of("c1"), attr("group", 2L),
                        ints("pads", 1, 1, 1, 1))
                .node("Relu", "relu", List.of("c1"), List.of("r"))
                .node("Conv", "conv2", List.of("r", "w2"), List.of("y"), ints("strides", 2, 1),
                        ints("pads", 0, 1, 1, 0), ints("dilations", 1, 2))
                .output("y").build();
    }

    private static List<String> ops(List<NodeAssignment> assignment, String ep) {
        return assignment.stream().filter(a -> a.ep().equals(ep)).map(NodeAssignment::opType).toList();
    }

    @Test
    void itsConvsRunChannelsLastBetweenOnePairOfTransposesAndMatchTheCpuEp() {
        OnnxModel model = convReluConv();
        Map<String, Tensor> feeds = Map.of("x", Tensors.random(random, 2, 4, 9, 7));
        List<NodeAssignment> assignment = new ArrayList<>();
        ExampleRuns.Result r = ExampleRuns.runWithLayout(model, feeds, "NHWC", assignment);
        String nhwcConv = DataLayout.NHWC_DOMAIN + "::Conv";
        assertEquals(List.of(nhwcConv, "Relu", nhwcConv), ops(assignment, ExampleEpFactory.NAME));
        assertEquals(List.of("Transpose", "Transpose"), ops(assignment, "CPUExecutionProvider"),
                "the transposes between the Convs cancel: only the two at the ends are left");
        assertEquals(1, r.groups().size(), "the chain is one group of the example EP");
        assertTrue(r.groups().get(0).stream().filter(n -> n.opType().equals("Conv"))
                .allMatch(n -> n.domain().equals(DataLayout.NHWC_DOMAIN)));
        ExampleRuns.assertClose(ExampleRuns.runOnCpu(model, feeds), r.outputs(), 1e-4);
    }

    @Test
    void aOneDimensionalConvRunsChannelsLastToo() {
        OnnxModel model = new ModelBuilder().input("x", 2, 4, 15).initializer("w", Tensors.random(random, 6, 2, 3))
                .initializer("b", Tensors.random(random, 6))
                .node("Conv", "conv", List.of("x", "w", "b"), List.of("y"), attr("group", 2L), ints("strides", 2),
                        ints("pads", 1, 2), ints("dilations", 2))
                .output("y").build();
        Map<String, Tensor> feeds = Map.of("x", Tensors.random(random, 2, 4, 15));
        List<NodeAssignment> assignment = new ArrayList<>();
        ExampleRuns.Result r = ExampleRuns.runWithLayout(model, feeds, "NHWC", assignment);
        assertEquals(List.of(DataLayout.NHWC_DOMAIN + "::Conv"), ops(assignment, ExampleEpFactory.NAME));
        ExampleRuns.assertClose(ExampleRuns.runOnCpu(model, feeds), r.outputs());
    }

    @Test
    void layoutNchwLeavesTheGraphAsOnnxHasIt() {
        OnnxModel model = convReluConv();
        Map<String, Tensor> feeds = Map.of("x", Tensors.random(random, 2, 4, 9, 7));
        List<NodeAssignment> assignment = new ArrayList<>();
        ExampleRuns.Result r = ExampleRuns.runWithLayout(model, feeds, "NCHW", assignment);
        assertEquals(List.of("Conv", "Relu", "Conv"), ops(assignment, ExampleEpFactory.NAME));
        assertEquals(List.of(), ops(assignment, "CPUExecutionProvider"));
        assertTrue(r.groups().get(0).stream().map(NodeView::domain).allMatch(String::isEmpty));
        ExampleRuns.assertClose(ExampleRuns.runOnCpu(model, feeds), r.outputs(), 1e-4);
    }

    @Test
    void itAsksForConvOnlyAndRefusesAnUnknownLayoutOption() {
        ExampleExecutionProvider ep = new ExampleExecutionProvider(true);
        assertEquals(DataLayout.NHWC, ep.preferredDataLayout());
        assertEquals(LayoutConversion.CONVERT, ep.shouldConvertDataLayout("", "Conv", DataLayout.NHWC));
        assertEquals(LayoutConversion.KEEP, ep.shouldConvertDataLayout("", "MaxPool", DataLayout.NHWC));
        assertEquals(LayoutConversion.KEEP, ep.shouldConvertDataLayout("com.microsoft", "Conv", DataLayout.NHWC));
        ExampleEpFactory f = new ExampleEpFactory();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> f.createEp(
                f.supportedDevices(List.of(), Map.of("allow_virtual_devices", "1")),
                Map.of("ep.exampleexecutionprovider.layout", "nhwc\n")));
        assertTrue(e.getMessage().contains("layout") && e.getMessage().contains("NHWC or NCHW"), e.getMessage());
    }
}
