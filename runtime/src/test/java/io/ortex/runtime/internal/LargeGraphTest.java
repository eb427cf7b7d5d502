package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.testing.ModelBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Session creation grows linearly with the node count: a chain of 200,000 nodes opens and runs. Before partitions got
 * their graph views in linear time, 20,000 nodes took 28 s and 200,000 did not finish; the limit below is generous
 * for a slow machine and still far below what quadratic work needs. Relu nodes, unlike Identity nodes, stay in the
 * graph through the session's optimizations, so every node reaches the partitioner and the plan.
 */
class LargeGraphTest {

    /** A chain {@code x -> Relu -> ... -> y} of {@code count} nodes. */
    static byte[] reluChain(int count) {
        GraphProto.Builder g = GraphProto.newBuilder().setName("chain")
                .addInput(ModelBuilder.valueInfo("x", TestModels.FLOAT, 2))
                .addOutput(ModelBuilder.valueInfo("y", TestModels.FLOAT, 2));
        for (int i = 0; i < count; i++) {
            g.addNode(NodeProto.newBuilder().setOpType("Relu").setName("n" + i)
                    .addInput(i == 0 ? "x" : "v" + (i - 1)).addOutput(i == count - 1 ? "y" : "v" + i));
        }
        return ModelProto.newBuilder().setIrVersion(8)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .setGraph(g).build().toByteArray();
    }

    @Test
    void twoHundredThousandNodesOpenInLinearTime() {
        byte[] model = reluChain(200_000);
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU),
                    List.of(new CpuEpFactory()));
                 Session s = env.createSession(model, new SessionOptions())) {
                assertEquals(200_000, s.assignment().size());
                Tensor y = s.run(Map.of("x", Tensor.ofFloats(new float[] {1f, -2f}, 2))).get("y");
                assertArrayEquals(new float[] {1f, 0f}, y.floats());
            }
        });
    }
}
